// ioredis, loaded on first use: about 2 MB of heap and 60 ms of start that a gateway without team
// mode would otherwise pay (a larger heap also makes every major collection slower).
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';

const load = createRequire(import.meta.url);
let lib: typeof IORedis | null = null;

export function ioredis(): typeof IORedis {
  lib ??= load('ioredis') as typeof IORedis;
  return lib;
}
