import type { SettingDef } from './setting-def';

/** Mid-stream continuation (issue 28): finishing a stream cut after text reached the client. */
export const CONTINUATION_SETTINGS: readonly SettingDef[] = [
  {
    key: 'streamContinuation.enabled',
    kind: 'boolean',
    defaultValue: true,
    env: 'BREAKWATER_STREAM_CONTINUATION',
    description:
      'A stream that breaks after text reached the client (reset, idle timeout, watchdog cut, error event, early end) is finished by a continuation request carrying the partial answer; the client sees one uninterrupted answer.',
  },
  {
    key: 'streamContinuation.maxContinuations',
    kind: 'integer',
    defaultValue: 2,
    min: 1,
    max: 10,
    unit: 'count',
    description:
      'Continuation requests one client stream may get; past them (or past the total deadline) the stream ends with its error event as without continuation.',
  },
  {
    key: 'streamContinuation.holdToolCalls',
    kind: 'boolean',
    defaultValue: true,
    description:
      'While continuation is on, a streamed tool call reaches the client once its arguments are complete, so a cut inside one is asked for again unseen and the client gets one whole call. Off: tool call deltas stream as they come, and a cut inside one ends the stream.',
  },
];
