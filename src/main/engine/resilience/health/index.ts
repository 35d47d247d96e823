// Health (RESILIENCE.md §1-3, §7-8): the per-provider breaker, provider and connection cooldowns,
// model lockouts, the error rules that classify an upstream answer, the failure policy that turns
// a classification into those states, the exclusion routing reads, and the team mirror that
// applies what a peer learnt to this instance's health state.

export { applySuccess, cleared, isHealthy } from './connection-cooldown';
export { EgressMap } from './egress';
export { type Classification, classify, type OperatorRule } from './error-rules';
export { type Exclusion, exclusionOf, type Reprobe } from './exclusion';
export {
  coolsEgressSiblings,
  decideFailure,
  type FailureOutcome,
  type FailureState,
} from './failure-policy';
export {
  countsNetworkFailures,
  HOST_NETWORK_UP,
  type HostNetwork,
  type HostNetworkEvent,
  nextHostNetwork,
} from './host-network';
export { lockoutView, NO_FAMILIES } from './model-lockout';
export { NOT_COOLING } from './provider-cooldown';
export { lockoutReprobeDue, reprobeDue, reprobeFailed } from './reprobe';
export { ReprobeGate, type ReprobeTicket, successCause } from './reprobe-gate';
export { ResilienceState } from './resilience-state';
export { adoptChange } from './team-mirror';
