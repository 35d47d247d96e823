import { useState } from 'react';
import type { ConnectionTestResult } from '../../../../shared/contract';
import { useDashboard } from '../../state/store';

type TestState =
  | { phase: 'idle' }
  | { phase: 'running' }
  | { phase: 'done'; result: ConnectionTestResult }
  | { phase: 'failed'; error: string };

function testText(state: TestState): { tone: 'ok' | 'bad' | 'idle'; text: string } {
  switch (state.phase) {
    case 'idle':
      return { tone: 'idle', text: '' };
    case 'running':
      return { tone: 'idle', text: 'Testing…' };
    case 'failed':
      return { tone: 'bad', text: state.error };
    case 'done':
      return state.result.ok
        ? { tone: 'ok', text: `OK · ${state.result.latencyMs} ms` }
        : { tone: 'bad', text: state.result.message };
  }
}

/**
 * "Test a connection": one authenticated call to the provider with this connection's key. The
 * result sits in a fixed-width slot next to the button, so nothing moves when it arrives; a
 * live region announces it.
 */
export function ConnectionTest({ id }: { id: string }) {
  const bridge = useDashboard((s) => s.bridge);
  const [state, setState] = useState<TestState>({ phase: 'idle' });
  if (!bridge) return null;
  const running = state.phase === 'running';
  const run = async () => {
    setState({ phase: 'running' });
    const r = await bridge.testConnection(id);
    setState(r.ok ? { phase: 'done', result: r.data } : { phase: 'failed', error: r.error });
  };
  const { tone, text } = testText(state);
  const detail =
    state.phase === 'done' && state.result.ok ? state.result.message : text || undefined;
  return (
    <span className="conn-test">
      <button
        type="button"
        className="btn"
        onClick={run}
        disabled={running}
        aria-busy={running}
        aria-label={`Test connection ${id}`}
        aria-describedby={`conn-test-${id}`}
      >
        Test
      </button>
      <span
        id={`conn-test-${id}`}
        className={`conn-test-result small text-${tone}`}
        role="status"
        aria-live="polite"
        title={detail}
        data-testid={`conn-test-${id}`}
      >
        {text || '\u00a0'}
      </span>
    </span>
  );
}
