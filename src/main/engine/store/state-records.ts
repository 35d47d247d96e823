// The resilience state as it is persisted: the store saves and loads these shapes, and the
// resilience mechanisms (which sit above the store) own their behaviour. The shapes themselves are
// shared (team instances send them to each other), so they live in the contract.
export type {
  BreakerSnapshot,
  BreakerState,
  ConnectionHealth,
  EndReason,
  Lease,
  LeaseStatus,
  LockoutEntry,
  TerminalStatus,
} from '../../../shared/contract';
