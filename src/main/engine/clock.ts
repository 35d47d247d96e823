/** The only source of time for engine logic; tests pass a fake one and advance it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
