import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineEvent, Snapshot } from '../../../shared/contract';

/** Events a subscriber may fall behind by (bytes queued beyond the socket's own buffer). */
export const EVENT_BACKLOG_BYTES = 1024 * 1024;

/**
 * Streams engine events as SSE until the client goes away; a comment line keeps proxies awake.
 * Writes respect backpressure: what the socket cannot take waits in a queue of at most
 * EVENT_BACKLOG_BYTES, past which the subscriber is dropped (a stalled reader must not grow the
 * gateway's memory), with a last `subscriber.dropped` event it sees if it ever reads again.
 */
export function streamEvents(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { snapshot(): Snapshot; onEvent(listener: (e: EngineEvent) => void): () => void },
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  let backlog: string[] = [];
  let backlogBytes = 0;
  let dropped = false;
  const send = (text: string) => {
    if (dropped) return;
    if (backlog.length === 0 && !res.writableNeedDrain) {
      res.write(text);
      return;
    }
    backlogBytes += Buffer.byteLength(text);
    if (backlogBytes > EVENT_BACKLOG_BYTES) return drop();
    backlog.push(text);
  };
  const flush = () => {
    while (backlog.length > 0 && !res.writableNeedDrain) {
      const text = backlog.shift()!;
      backlogBytes -= Buffer.byteLength(text);
      res.write(text);
    }
  };
  const drop = () => {
    dropped = true;
    stop();
    backlog = [];
    const last = {
      type: 'subscriber.dropped',
      reason: `this subscriber fell more than ${EVENT_BACKLOG_BYTES} bytes of events behind; reconnect and read /api/state`,
    };
    // The connection closes once the reader has taken it all; held for a minute at most.
    const socket = res.socket;
    res.end(`event: subscriber.dropped\ndata: ${JSON.stringify(last)}\n\n`, () => socket?.end());
    setTimeout(() => res.destroy(), 60_000).unref();
  };
  send(`event: snapshot\ndata: ${JSON.stringify(deps.snapshot())}\n\n`);
  const off = deps.onEvent((event) => {
    send(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  });
  const heartbeat = setInterval(() => send(': keep-alive\n\n'), 15_000);
  heartbeat.unref();
  res.on('drain', flush);
  const stop = () => {
    off();
    clearInterval(heartbeat);
  };
  req.once('close', stop);
  res.once('close', stop);
}
