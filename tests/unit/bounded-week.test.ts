// A week of sessions in seconds (an injected clock): a team server's working hours, two requests
// a second with a new session each, the engine's sweep once a simulated minute. Every bounded map stays within
// its cap, and what it holds is only what was used within its TTL.
import { describe, expect, it } from 'vitest';
import { sessionState } from '../chaos/support/session-load';

const WEEK_MS = 7 * 24 * 3_600_000;
const PER_MINUTE = 120;

describe('a week of sessions against the bounded maps', () => {
  it('never holds more than its cap, and an idle night empties what expires within it', () => {
    const clock = { now: 1_700_000_000_000 };
    const state = sessionState(clock);
    const end = clock.now + WEEK_MS;
    let n = 0;
    while (clock.now < end) {
      // Working hours (8 to 20 h): 120 requests a minute (the load steps 20 ms each); nights idle.
      const hour = Math.floor((clock.now % 86_400_000) / 3_600_000);
      const minute = clock.now + 60_000;
      if (hour >= 8 && hour < 20) for (let i = 0; i < PER_MINUTE; i++) state.request(n++);
      clock.now = minute;
      state.maps.sweep();
      const size = Object.fromEntries(state.maps.stats().map((m) => [m.name, m.size]));
      for (const m of state.maps.stats()) expect(m.size).toBeLessThanOrEqual(m.capacity);
      // Only the sessions of the last 30 minutes (the pins' TTL) are pinned.
      expect(size.session_pins).toBeLessThanOrEqual(31 * PER_MINUTE);
      if (hour === 7) {
        // After a night idle: the pins (30 min) and prefixes (1 h) are gone; a day's TTL is not.
        expect(size.session_pins).toBe(0);
        expect(size.prompt_prefixes).toBe(0);
      }
    }
    expect(n).toBe(7 * 12 * 60 * PER_MINUTE);
    const full = Object.fromEntries(state.maps.stats().map((m) => [m.name, m.evicted > 0]));
    expect(full).toEqual({
      session_pins: false,
      relay_sessions: true,
      target_stats: true,
      prompt_prefixes: true,
    });
    // Two days without traffic: everything has expired.
    for (let i = 0; i < 2 * 24 * 60; i++) {
      clock.now += 60_000;
      state.maps.sweep();
    }
    expect(state.maps.stats().every((m) => m.size === 0)).toBe(true);
  }, 120_000);
});
