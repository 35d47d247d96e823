import { useState } from 'react';
import type { ClientFormat, RuleTestResult } from '../../../../shared/contract';
import { CLIENT_FORMATS } from '../../../../shared/schema/rules';
import { Card } from '../../components/ui';
import { useDashboard } from '../../state/store';

const EXAMPLE = JSON.stringify(
  {
    model: 'claude-haiku-4-5-20251001',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  },
  null,
  2,
);

/** "Try a request": which saved rule a request body would take, and why the earlier ones did not. */
export function RuleTry() {
  const bridge = useDashboard((s) => s.bridge);
  const [text, setText] = useState(EXAMPLE);
  const [client, setClient] = useState<ClientFormat>('anthropic');
  const [result, setResult] = useState<RuleTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const test = async () => {
    if (!bridge) return;
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      return setError('the request is not JSON');
    }
    const r = await bridge.testRules({ request, client });
    if (!r.ok) return setError(r.field ? `${r.field}: ${r.error}` : r.error);
    setError(null);
    setResult(r.data);
  };
  return (
    <Card title="Try a request">
      <div className="form">
        <label className="wide">
          Request body
          <textarea rows={6} value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <label>
          Client format
          <select value={client} onChange={(e) => setClient(e.target.value as ClientFormat)}>
            {CLIENT_FORMATS.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn btn-primary" onClick={() => void test()}>
          Test
        </button>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {result && (
          <div data-testid="rule-try-result">
            <p>
              {result.matched
                ? `Takes rule ${result.matched.name} → ${result.matched.use}`
                : `No rule matches: model ${result.seen.model} is resolved as it is`}
            </p>
            <ul>
              {result.missed.map((m) => (
                <li key={m.name}>
                  {m.name}: {m.why}
                </li>
              ))}
            </ul>
            <p className="muted">
              Seen: ~{result.seen.inputTokens} tokens in, thinking {String(result.seen.thinking)},
              images {String(result.seen.images)}, web search {String(result.seen.webSearch)}, tools{' '}
              {String(result.seen.tools)}
            </p>
          </div>
        )}
      </div>
    </Card>
  );
}
