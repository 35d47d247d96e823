import type { DoorStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

const PAUSED = reply({
  status: 503,
  kind: 'overloaded',
  code: 'gateway_paused',
  message: 'Breakwater is paused by its operator; requests are not forwarded until it is resumed',
  headers: { 'retry-after': '30' },
});

/** Front door: while the operator has paused the proxy, requests get 503 `gateway_paused`. */
export const pause: DoorStage = {
  name: 'pause',
  run: (_door, deps: PipelineDeps): Decision => (deps.paused() ? PAUSED : CONTINUE),
};
