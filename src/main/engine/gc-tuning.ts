import { setFlagsFromString } from 'node:v8';

/**
 * Turns V8's allocation-site pretenuring off for the gateway's process. With streams in flight,
 * a scavenge finds nearly every object a stream made in the last few milliseconds still alive;
 * once the young generation has grown to its limit, V8 takes those allocation sites for makers
 * of long-lived objects and allocates from them straight into the old generation, where the
 * stream's objects, and everything they point to, then wait for a full collection (measured at
 * c=64 streaming, see docs/performance.md: per scavenge 790 KB promoted instead of 77 KB,
 * pauses of 3.9 ms instead of 2.0, three times the full collections, 10-20 % more CPU per
 * stream). What the gateway keeps for long from a request is little (a log row until its batch
 * is written, a session's prompt digests) and reaches the old generation by ordinary promotion
 * anyway; the rest of what it keeps is made at start-up or on a config change. V8 reads the flag
 * at each collection, so setting it at run time takes effect.
 */
export function tuneGarbageCollection(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
