// Dependencies only some features use, loaded on first use: ioredis (team mode; about 2 MB of
// heap and 60 ms of start), yaml (LiteLLM imports; 1 MB, 27 ms), smol-toml (Codex's config;
// 0.5 MB). A gateway that never uses them pays nothing, and a smaller heap also makes every
// major collection that a request's buffers trigger cheaper.
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';
import type * as SmolToml from 'smol-toml';
import type * as Yaml from 'yaml';

const load = createRequire(import.meta.url);

function lazy<T>(id: string): () => T {
  let mod: T | undefined;
  return () => {
    mod ??= load(id) as T;
    return mod;
  };
}

export const ioredis = lazy<typeof IORedis>('ioredis');
export const yaml = lazy<typeof Yaml>('yaml');
export const toml = lazy<typeof SmolToml>('smol-toml');
