// Flow (RESILIENCE.md §4-5): per-connection `maxConcurrent` semaphores, request queues with their
// rate limits, and the admission limits both resolve to, held together by FlowControl.

export { FlowControl, type FlowHold } from './flow-control';
export { NO_RATE_LIMIT, QueueRejection } from './request-queue';
