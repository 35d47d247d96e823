// Quota wait (issue 29): when nothing can serve a request and every obstacle ends by itself soon,
// the request waits for the earliest end instead of failing; waiters are released in arrival
// order, a few at a time.

export { decideQuotaWait, type Obstacle, type QuotaWaitDecision, waitedFor } from './decide';
export { type QuotaRelease, QuotaWaitRoom, RELEASE_BURST, type Waiting } from './room';
export { toRelease } from './trickle';
