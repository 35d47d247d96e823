// A state backend for unit tests of team mode: it records what is sent and lets the test deliver
// a peer's change, as Redis's pub/sub would.
import {
  LOCAL_STATE,
  type SharedChange,
  type StateBackend,
} from '../../src/main/engine/state/backend';

export type StateRecorder = StateBackend & { sent: SharedChange[]; deliver(c: SharedChange): void };

export function recorder(): StateRecorder {
  const listeners: Array<(c: SharedChange) => void> = [];
  const sent: SharedChange[] = [];
  return {
    ...LOCAL_STATE,
    kind: 'redis',
    sent,
    onChange: (l) => listeners.push(l),
    put: (c) => sent.push(c),
    deliver: (c) => {
      for (const l of listeners) l(c);
    },
  };
}
