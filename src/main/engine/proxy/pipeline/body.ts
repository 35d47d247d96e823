import { type BodyAbortedError, BodyTooLargeError, collectBody, joinChunks } from '../../wire/body';
import { bytesIn, pooledBody } from './body-block';
import type { Door, DoorStage } from './context';
import { ANSWERED, CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/** Front door: the body, read whole up to `gateway.maxBodyBytes`. */
export const body: DoorStage = {
  name: 'body',
  run(door: Door, deps: PipelineDeps): Promise<Decision> {
    return new Promise((resolve, reject) =>
      collectBody(door.req, deps.maxBodyBytes, (err, chunks, size) => {
        // Told from the request's events: a throw here would escape the request, not fail it.
        try {
          resolve(decided(door, deps, err, chunks, size));
        } catch (thrown) {
          reject(thrown);
        }
      }),
    );
  },
};

function decided(
  door: Door,
  deps: PipelineDeps,
  err: BodyTooLargeError | BodyAbortedError | null,
  chunks: readonly Buffer[] | null,
  size: number,
): Decision {
  if (err === null) {
    // Several chunks go into a pooled block when their size is the pool's (body-block.ts).
    door.pooled = chunks!.length > 1 ? pooledBody(chunks!, size) : null;
    door.raw = door.pooled === null ? joinChunks(chunks!, size) : bytesIn(door.pooled, size);
    return CONTINUE;
  }
  if (err instanceof BodyTooLargeError) {
    return reply({
      status: 413,
      kind: 'too_large',
      code: 'request_too_large',
      message: `request body is larger than the gateway limit of ${deps.maxBodyBytes} bytes (gateway.maxBodyBytes)`,
    });
  }
  // The client went away while sending: nobody is left to answer. Counted, not an error of
  // the gateway's.
  deps.log.debug(
    `client closed the connection during its upload (${door.req.method} ${door.url.pathname})`,
  );
  deps.uploadAborted?.();
  return ANSWERED;
}
