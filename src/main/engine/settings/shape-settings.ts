import type { SettingDef } from './setting-def';

/** Request-shape repairs and the heartbeat-proof idle timeout (issue 17; docs/resilience.md). */
export const SHAPE_SETTINGS: readonly SettingDef[] = [
  {
    key: 'shapeRepair.parameterLearning',
    kind: 'boolean',
    defaultValue: true,
    env: 'BREAKWATER_PARAMETER_LEARNING',
    description:
      'A 400 naming an unsupported parameter or value is retried once with that parameter dropped, renamed or clamped, and the fix is remembered per provider and model.',
  },
  {
    key: 'shapeRepair.effortClamp',
    kind: 'boolean',
    defaultValue: true,
    env: 'BREAKWATER_EFFORT_CLAMP',
    description:
      'A 400 rejecting the thinking budget or effort level is retried with the highest the provider accepts (at most two retries), and remembered.',
  },
  {
    key: 'shapeRepair.toolLimit',
    kind: 'boolean',
    defaultValue: true,
    env: 'BREAKWATER_TOOL_LIMIT',
    description:
      'A 400 stating a maximum number of tools is remembered per provider and model; that request and later ones with more tools fail over to a target without the limit, or get a clear 400 when none is left.',
  },
  {
    key: 'shapeRepair.contextEditing',
    kind: 'boolean',
    defaultValue: false,
    env: 'BREAKWATER_CONTEXT_EDITING',
    description:
      "Opt-in (it changes what the model sees): a 400 saying the prompt is too long is retried once with the oldest whole turns removed, after the system prompt and the first user turn. A combo's options.contextEditing wins over this. Off, the request fails over to a target with a larger context window, if one is left.",
  },
  {
    key: 'streamRecovery.contentIdle',
    kind: 'boolean',
    defaultValue: true,
    env: 'BREAKWATER_CONTENT_IDLE_TIMEOUT',
    description:
      'The idle timeout of an event stream counts only content: SSE comments, ping events and empty deltas do not reset it.',
  },
];
