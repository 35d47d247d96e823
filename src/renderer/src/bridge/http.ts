// BridgeApi for the browser dashboard served at `/ui`: admin actions over the admin API, events
// over `/api/events` (SSE read with fetch, because EventSource cannot send the Authorization
// header and the token must never go into a URL). Events are handed on in batches, like IPC.

import { createAdminClient, createSseParser } from '../../../shared/admin-client';
import type { EngineEvent } from '../../../shared/contract';
import { EVENT_BATCH_MS } from '../../../shared/ipc';
import { clearToken, readToken } from './token';
import type { DashboardBridge, LinkState } from './types';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

type Moved = Extract<EngineEvent, { type: 'gateway.moved' }>;

/**
 * Where the dashboard continues after the gateway moved, or null when this page is there already.
 * A wildcard bind (0.0.0.0, ::) keeps the name the browser used; the token goes in the fragment,
 * as in the sign-in link, because sessionStorage belongs to the old origin.
 */
export function movedDashboardUrl(
  page: { protocol: string; hostname: string; port: string },
  moved: Pick<Moved, 'host' | 'port'>,
  token: string | null,
): string | null {
  const wildcard = moved.host === '0.0.0.0' || moved.host === '::';
  const host = wildcard ? page.hostname : moved.host.includes(':') ? `[${moved.host}]` : moved.host;
  if (host === page.hostname && String(moved.port) === page.port) return null;
  const fragment = token ? `#token=${encodeURIComponent(token)}` : '';
  return `${page.protocol}//${host}:${moved.port}/ui/${fragment}`;
}

/** The gateway moved: the page follows it to the new address (the old one stops serving). */
function follow(moved: Moved): void {
  const url = movedDashboardUrl(window.location, moved, readToken());
  if (url) window.location.assign(url);
}

export function createHttpBridge(baseUrl = ''): DashboardBridge {
  const linkListeners = new Set<(s: LinkState) => void>();
  let link: LinkState = 'connecting';
  const setLink = (next: LinkState) => {
    if (next === link) return;
    link = next;
    for (const l of linkListeners) l(next);
  };
  const actions = createAdminClient({
    baseUrl,
    token: readToken,
    onUnauthorized: () => setLink('unauthorized'),
  });

  return {
    host: 'browser',
    ...actions,
    onLinkChange(listener) {
      linkListeners.add(listener);
      listener(link);
      return () => linkListeners.delete(listener);
    },
    signOut() {
      clearToken();
      setLink('unauthorized');
    },
    onEvents(listener) {
      let stopped = false;
      let controller: AbortController | null = null;
      let buffer: EngineEvent[] = [];
      let timer: ReturnType<typeof setTimeout> | null = null;
      const flush = () => {
        timer = null;
        if (buffer.length === 0 || stopped) return;
        const batch = buffer;
        buffer = [];
        listener(batch);
      };

      const run = async () => {
        let delay = RETRY_MIN_MS;
        while (!stopped) {
          const token = readToken();
          if (!token) {
            setLink('unauthorized');
            return;
          }
          controller = new AbortController();
          try {
            const res = await fetch(`${baseUrl}/api/events`, {
              headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
              signal: controller.signal,
              cache: 'no-store',
            });
            if (res.status === 401) {
              setLink('unauthorized');
              return;
            }
            if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
            setLink('live');
            delay = RETRY_MIN_MS;
            const parse = createSseParser();
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              for (const msg of parse(value)) {
                // The stream opens with a snapshot; the store reads its own, so only events pass.
                if (msg.event === 'snapshot') continue;
                let event: EngineEvent;
                try {
                  event = JSON.parse(msg.data) as EngineEvent;
                } catch {
                  continue;
                }
                if (event.type === 'gateway.moved') follow(event);
                buffer.push(event);
                timer ??= setTimeout(flush, EVENT_BATCH_MS);
              }
            }
          } catch {
            // fall through to the retry
          }
          if (stopped) return;
          setLink('reconnecting');
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(RETRY_MAX_MS, delay * 2);
        }
      };
      void run();
      return () => {
        stopped = true;
        controller?.abort();
        if (timer) clearTimeout(timer);
        buffer = [];
      };
    },
  };
}
