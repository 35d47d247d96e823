// context-relay's pure decision: which target a session's request goes to, and whether older
// turns must be replaced by a summary to fit that target's window (and which). The acting code
// (proxy/pipeline/context-relay.ts) asks the summarizer and rewrites the request.

import type { BoundedMap, BoundedMaps } from '../bounded-map';

/** A distinct target of the combo, in configured order, as the decision sees it. */
export interface RelayTarget {
  label: string;
  /** Some connection of it may be tried now (no open breaker, cooldown or lockout on all). */
  eligible: boolean;
  contextWindow: number | undefined;
}

export interface RelayInput {
  targets: readonly RelayTarget[];
  /** The target the session was last served by, if it has been served. */
  current: string | undefined;
  /** Estimated tokens of each turn, oldest first (a tool call and its result share a turn). */
  turns: readonly number[];
  /** Estimated tokens outside the turns: system prompt, tools, room for the answer. */
  fixed: number;
}

export interface RelayPlan {
  /** Target labels in the order to try, the chosen one first. */
  order: string[];
  /** The oldest turns to replace with a summary (0: none). */
  summarize: number;
  reason: string;
}

/** Of a smaller window, the share the kept turns may fill: the rest is the summary and slack. */
const KEEP_SHARE = 0.7;

export function planRelay(input: RelayInput): RelayPlan {
  const { targets, current, turns, fixed } = input;
  const need = fixed + turns.reduce((a, b) => a + b, 0);
  const fits = (t: RelayTarget) => t.contextWindow === undefined || need <= t.contextWindow;
  const cur = targets.find((t) => t.label === current);
  const orderFrom = (first: RelayTarget) => [
    first.label,
    ...targets.filter((t) => t !== first).map((t) => t.label),
  ];
  if (cur?.eligible && fits(cur)) {
    return { order: orderFrom(cur), summarize: 0, reason: `session stays on ${cur.label}` };
  }
  // Moving on: the targets after the current one, in configured order, wrapping around.
  const at = cur ? targets.indexOf(cur) : -1;
  const next = [...targets.slice(at + 1), ...targets.slice(0, Math.max(0, at))].filter(
    (t) => t.eligible,
  );
  const why = !cur
    ? current === undefined
      ? 'new session'
      : `session's ${current} left the combo`
    : !cur.eligible
      ? `session's ${cur.label} is ineligible`
      : `conversation (~${need} tokens) outgrew ${cur.label}'s window ${cur.contextWindow}`;
  if (next.length === 0) {
    if (cur)
      return { order: orderFrom(cur), summarize: 0, reason: `${why}; no other eligible target` };
    return {
      order: targets.map((t) => t.label),
      summarize: 0,
      reason: `${why}; none eligible: configured order`,
    };
  }
  const roomy = next.find(fits);
  if (roomy) {
    return { order: orderFrom(roomy), summarize: 0, reason: `${why}: moved to ${roomy.label}` };
  }
  // Every eligible window is too small: the next one gets the newest turns that fit, and a summary.
  const chosen = next[0]!;
  const budget = chosen.contextWindow! * KEEP_SHARE - fixed;
  let kept = 0;
  let size = 0;
  // The latest turn always stays: it is what the client asks now.
  while (kept < turns.length && (kept === 0 || size + turns[turns.length - 1 - kept]! <= budget)) {
    size += turns[turns.length - 1 - kept]!;
    kept++;
  }
  const summarize = turns.length - kept;
  return {
    order: orderFrom(chosen),
    summarize,
    reason:
      `${why}: moved to ${chosen.label} (window ${chosen.contextWindow})` +
      (summarize > 0 ? `; ${summarize} older turn${summarize === 1 ? '' : 's'} summarised` : ''),
  };
}

/** Sessions a relay combo remembers at most, and for how long after their last answer. */
const RELAY_SESSIONS = 10_000;
const RELAY_SESSION_TTL_MS = 24 * 3_600_000;

/** The target each session of a relay combo was last served by (bounded: TTL, least recent out). */
export class RelaySessions {
  private readonly map: BoundedMap<string, string>;

  constructor(maps: BoundedMaps, limit = RELAY_SESSIONS) {
    this.map = maps.create({
      name: 'relay_sessions',
      maxEntries: limit,
      ttlMs: () => RELAY_SESSION_TTL_MS,
    });
  }

  get(combo: string, session: string, now: number): string | undefined {
    return this.map.get(`${combo}\u0000${session}`, now);
  }

  set(combo: string, session: string, target: string, now: number): void {
    this.map.set(`${combo}\u0000${session}`, target, now);
  }
}
