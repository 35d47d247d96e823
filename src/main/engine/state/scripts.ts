// Lua scripts of the Redis backend. Each is one atomic step across every instance: Redis runs a
// script to the end before any other command, so no read-modify-write happens from Node. A
// script that announces takes the publish command as its last argument: PUBLISH, or SPUBLISH on
// a Cluster, where the channel is in the slot of the script's key (see redis-keys.ts).

import type { AnyRedis } from './redis-target';

/**
 * Stores (or deletes) a record and announces it. KEYS: record; ARGV: channel, message, ttl,
 * delete, publish command.
 */
export const PUT = `
if ARGV[4] == '1' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'u', '0')
  if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
end
redis.call(ARGV[5], ARGV[1], ARGV[2])
return 1`;

/**
 * A cooldown that only lengthens: stored and announced when it ends after the stored one, else
 * the stored record comes back. KEYS: record; ARGV: channel, message, until, ttl, publish command.
 */
export const LENGTHEN = `
local u = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
if tonumber(ARGV[3]) > u then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'u', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call(ARGV[5], ARGV[1], ARGV[2])
  return false
end
return redis.call('HGET', KEYS[1], 'v')`;

/** Gives a probe permit back only if it is still this one's. KEYS: permit; ARGV: token. */
export const RELEASE_PROBE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Takes a semaphore permit: a sorted set of holders scored by their expiry on Redis's own clock,
 * so a crashed instance's permits lapse with its requests' deadlines. KEYS: semaphore;
 * ARGV: limit, token, ttl.
 */
export const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

/**
 * Gives a semaphore permit back and wakes the waiters. KEYS: semaphore; ARGV: token, channel,
 * scope, publish command.
 */
export const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call(ARGV[4], ARGV[2], ARGV[3])
return 1`;

/**
 * Claims a connection's exclusive lease for an owner (issue 16): refused while another owner
 * holds it, else the owner's next generation (above both the stored one and the instance's own
 * latest), held with the lease's expiry. The owner's claim on its previous connection ends.
 * KEYS: claim, owner, previous claim; ARGV: owner, local generation, ttl, owner ttl.
 * Returns {1, generation} or {0, ms left on the other owner's claim}.
 */
export const CLAIM_LEASE = `
local holder = redis.call('HGET', KEYS[1], 'o')
if holder and holder ~= ARGV[1] then return {0, redis.call('PTTL', KEYS[1])} end
local g = math.max(tonumber(redis.call('HGET', KEYS[2], 'g') or '0'), tonumber(ARGV[2])) + 1
if KEYS[3] ~= KEYS[1] and redis.call('HGET', KEYS[3], 'o') == ARGV[1] then redis.call('DEL', KEYS[3]) end
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'g', g)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], 'g', g)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, g}`;

/**
 * Fences a renew or release by the owner's stored generation: {0, stored} when the presented
 * one is older (stale). A renew holds the claim again for ttl unless another owner took the
 * connection ({2, 0}); a release ends the claim if it is still this generation's.
 * KEYS: claim, owner; ARGV: owner, generation, ttl (0: release), owner ttl. Else {1, generation}.
 */
export const FENCE_LEASE = `
local stored = tonumber(redis.call('HGET', KEYS[2], 'g') or '0')
local g = tonumber(ARGV[2])
if g < stored then return {0, stored} end
local holder = redis.call('HGET', KEYS[1], 'o')
local mine = holder == ARGV[1] and tonumber(redis.call('HGET', KEYS[1], 'g')) == g
if ARGV[3] == '0' then
  if mine then redis.call('DEL', KEYS[1]) end
  return {1, g}
end
if holder and not mine then return {2, 0} end
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'g', g)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if g > stored then redis.call('HSET', KEYS[2], 'g', g) end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, g}`;

/**
 * Admits a request against shared counters: when none is at its max (-1: no max), the first
 * (requests this minute) is counted, with its expiry at the window's end. Returns the flag and
 * every counter as read before, as strings (a Lua number would lose its decimals).
 * KEYS: counters; ARGV: their maxes, then the first one's ttl.
 */
export const ADMIT_COUNTERS = `
local used, ok = {}, 1
for i = 1, #KEYS do
  used[i] = redis.call('GET', KEYS[i]) or '0'
  local max = tonumber(ARGV[i])
  if max >= 0 and tonumber(used[i]) >= max then ok = 0 end
end
if ok == 1 then
  redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[#KEYS + 1])
end
return {ok, used}`;

export type Publish = 'PUBLISH' | 'SPUBLISH';

/** The record scripts as commands of a client (`recordScripts`). */
export interface ScriptClient {
  bwPut(
    key: string,
    channel: string,
    msg: string,
    ttl: number,
    del: 0 | 1,
    cmd: Publish,
  ): Promise<number>;
  bwLengthen(
    key: string,
    channel: string,
    msg: string,
    until: number,
    ttl: number,
    cmd: Publish,
  ): Promise<string | null>;
  bwReleaseProbe(key: string, token: string): Promise<number>;
}

/** Defines the record scripts on `client` (ioredis sends each by its hash once loaded). */
export function recordScripts(client: AnyRedis): ScriptClient {
  client.defineCommand('bwPut', { numberOfKeys: 1, lua: PUT });
  client.defineCommand('bwLengthen', { numberOfKeys: 1, lua: LENGTHEN });
  client.defineCommand('bwReleaseProbe', { numberOfKeys: 1, lua: RELEASE_PROBE });
  return client as unknown as ScriptClient;
}
