// Stream health (RESILIENCE.md §6): the throughput watchdog and the content idle timeout that
// heartbeats do not reset.

export { ContentIdleFeed, idleVerdict } from './content-idle';
export { ThroughputWatchdog, WatchdogFeed } from './throughput-watchdog';
