// Whether a network failure says something about the provider or only about this machine. A
// laptop that wakes up (or has no network) fails every connection at once; counting those
// against the providers would open every breaker and fire a toast for each. So network failures
// are not counted while the machine sleeps or is offline, nor for a grace period after it wakes
// or comes back online. Answers from a provider (5xx, 429, …) always count: they prove the
// network works.

/** Long enough for Wi-Fi to reassociate and DNS to answer after a wake-up. */
export const HOST_NETWORK_GRACE_MS = 30_000;

export type HostNetworkEvent = 'suspend' | 'resume' | 'offline' | 'online';

export interface HostNetwork {
  readonly asleep: boolean;
  readonly offline: boolean;
  /** When the machine last woke up or came back online; null before either happened. */
  readonly backAt: number | null;
}

export const HOST_NETWORK_UP: HostNetwork = { asleep: false, offline: false, backAt: null };

export function nextHostNetwork(
  state: HostNetwork,
  event: HostNetworkEvent,
  now: number,
): HostNetwork {
  switch (event) {
    case 'suspend':
      return { ...state, asleep: true };
    case 'resume':
      return { ...state, asleep: false, backAt: now };
    case 'offline':
      return { ...state, offline: true };
    case 'online':
      return state.offline ? { ...state, offline: false, backAt: now } : state;
  }
}

/** True when a network failure at `now` counts against the provider. */
export function countsNetworkFailures(
  state: HostNetwork,
  now: number,
  graceMs = HOST_NETWORK_GRACE_MS,
): boolean {
  if (state.asleep || state.offline) return false;
  return state.backAt === null || now - state.backAt >= graceMs;
}
