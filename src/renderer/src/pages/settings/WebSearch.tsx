import { type FormEvent, useEffect, useState } from 'react';
import type { WebSearchBackend, WebSearchConfig, WebSearchView } from '../../../../shared/contract';
import { Card } from '../../components/ui';
import { useDashboard } from '../../state/store';

const BACKENDS: readonly WebSearchBackend[] = ['searxng', 'brave', 'tavily'];

interface Draft {
  backend: WebSearchBackend;
  url: string;
  apiKey: string;
  apiKeyEnv: string;
  maxResults: string;
}

function draftOf(v: WebSearchView | null): Draft {
  return {
    backend: v?.backend ?? 'searxng',
    url: v?.url ?? '',
    apiKey: '',
    apiKeyEnv: v?.apiKeyEnv ?? '',
    maxResults: String(v?.maxResults ?? 5),
  };
}

function configOf(d: Draft): WebSearchConfig {
  const n = Number(d.maxResults.trim());
  return {
    backend: d.backend,
    ...(d.url.trim() ? { url: d.url.trim() } : {}),
    ...(d.apiKey ? { apiKey: d.apiKey } : {}),
    ...(d.apiKeyEnv.trim() ? { apiKeyEnv: d.apiKeyEnv.trim() } : {}),
    ...(d.maxResults.trim() ? { maxResults: Number.isFinite(n) ? n : Number.NaN } : {}),
  };
}

/**
 * The search backend the gateway runs a client's search tool on when the provider cannot
 * (docs/web-search.md). The key is write-only: it is never shown back, and an empty field keeps
 * the stored one.
 */
export function WebSearch() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [saved, setSaved] = useState<WebSearchView | null | undefined>(undefined);
  const [draft, setDraft] = useState<Draft>(draftOf(null));
  const [error, setError] = useState<{ field: string | null; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void bridge?.getWebSearch().then((r) => {
      if (!r.ok) return setError({ field: null, text: r.error });
      setSaved(r.data.webSearch);
      setDraft(draftOf(r.data.webSearch));
    });
  }, [bridge]);
  if (!bridge || saved === undefined) return null;

  const done = (view: WebSearchView | null, text: string) => {
    setError(null);
    setSaved(view);
    setDraft(draftOf(view));
    notify('ok', text);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const r = await bridge.saveWebSearch(configOf(draft));
    setBusy(false);
    if (!r.ok) return setError({ field: r.field ?? null, text: r.error });
    done(r.data.webSearch, 'Web search saved; it applies to the next request');
  };
  const remove = async () => {
    setBusy(true);
    const r = await bridge.deleteWebSearch();
    setBusy(false);
    if (!r.ok) return setError({ field: r.field ?? null, text: r.error });
    done(null, 'Web search removed: search tools now tell the model none is configured');
  };
  const set = (k: keyof Draft) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [k]: e.target.value });
  const invalid = (field: string) => (error?.field === `webSearch.${field}` ? true : undefined);
  const keyed = draft.backend !== 'searxng';

  return (
    <Card title="Web search">
      <form onSubmit={(e) => void submit(e)} aria-label="Web search" className="row">
        <label htmlFor="ws-backend">Backend</label>
        <select id="ws-backend" value={draft.backend} onChange={set('backend')}>
          {BACKENDS.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
        <label htmlFor="ws-url">URL</label>
        <input
          id="ws-url"
          value={draft.url}
          placeholder={keyed ? 'the API default' : 'https://searx.example'}
          aria-invalid={invalid('url')}
          onChange={set('url')}
        />
        {keyed && (
          <>
            <label htmlFor="ws-key">API key</label>
            <input
              id="ws-key"
              type="password"
              autoComplete="off"
              value={draft.apiKey}
              placeholder={saved?.hasSecret ? 'stored (leave empty to keep)' : ''}
              aria-invalid={invalid('apiKey')}
              onChange={set('apiKey')}
            />
            <label htmlFor="ws-key-env">or key variable</label>
            <input
              id="ws-key-env"
              value={draft.apiKeyEnv}
              aria-invalid={invalid('apiKeyEnv')}
              onChange={set('apiKeyEnv')}
            />
          </>
        )}
        <label htmlFor="ws-max">Results</label>
        <input
          id="ws-max"
          inputMode="numeric"
          value={draft.maxResults}
          aria-invalid={invalid('maxResults')}
          onChange={set('maxResults')}
        />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Save
        </button>
        {saved && (
          <button type="button" className="btn" disabled={busy} onClick={() => void remove()}>
            Remove
          </button>
        )}
      </form>
      <p className="muted small">
        {saved
          ? `Searches run on ${saved.backend}${saved.url ? ` at ${saved.url}` : ''}${keyed && !saved.hasSecret ? ' (no key: searches will fail)' : ''}.`
          : 'None set: a search tool on a provider without one tells the model web search is unavailable.'}{' '}
        Used only when the provider cannot run the client's search tool itself; Anthropic and OpenAI
        Responses providers run theirs.
      </p>
      <p className={`form-error ${error ? '' : 'hidden'}`} role="alert">
        {error?.text ?? '\u00a0'}
      </p>
    </Card>
  );
}
