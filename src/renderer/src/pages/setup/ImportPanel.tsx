import { useState } from 'react';
import type { ImportReport, ImportTool } from '../../../../shared/contract';
import { useDashboard } from '../../state/store';

const TOOLS: { id: ImportTool; name: string }[] = [
  { id: 'omniroute', name: 'OmniRoute (settings export)' },
  { id: 'claude-code-router', name: 'claude-code-router (config.json)' },
  { id: 'litellm', name: 'LiteLLM (config.yaml)' },
  { id: 'cc-switch', name: 'CC Switch (config.json)' },
];

/** Another gateway's config file: a preview of what comes in and what is skipped, then the import. */
export function ImportPanel({ onImported }: { onImported(report: ImportReport): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const [tool, setTool] = useState<ImportTool>('omniroute');
  const [text, setText] = useState<string | null>(null);
  const [preview, setPreview] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(dryRun: boolean): Promise<void> {
    if (!bridge || text === null) return;
    const r = await bridge.importConfig(tool, text, dryRun);
    if (!r.ok) {
      setError(r.error);
      setPreview(null);
      return;
    }
    setError(null);
    if (dryRun) setPreview(r.data);
    else onImported(r.data);
  }

  return (
    <details className="setup-import" data-testid="setup-import">
      <summary>Import from another gateway</summary>
      <div className="form">
        <label>
          Tool{' '}
          <select
            value={tool}
            onChange={(e) => {
              setTool(e.target.value as ImportTool);
              setPreview(null);
            }}
          >
            {TOOLS.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          File{' '}
          <input
            type="file"
            onChange={(e) => {
              setPreview(null);
              void e.target.files?.[0]?.text().then(setText);
            }}
          />
        </label>
        <div className="form-actions">
          <button
            type="button"
            className="btn"
            disabled={text === null}
            onClick={() => void run(true)}
          >
            Preview
          </button>{' '}
          <button
            type="button"
            className="btn btn-primary"
            disabled={preview === null}
            onClick={() => void run(false)}
          >
            Import
          </button>
        </div>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        {preview && (
          <div className="small">
            <p>Would import:</p>
            <ul>
              {preview.imported.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
            {preview.skipped.length > 0 && <p>Skipped:</p>}
            <ul>
              {preview.skipped.map((s) => (
                <li key={s.item}>
                  {s.item}: {s.reason}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </details>
  );
}
