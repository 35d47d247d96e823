// Anthropic subscription accounts (RESILIENCE.md §2): the low-priority lane and the automatic
// limit reset, run by one service.

export type { LaneState } from './lane';
export { SubscriptionService } from './service';
