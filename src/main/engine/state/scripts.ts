// Lua scripts of the Redis backend. Each is one atomic step across every instance: Redis runs a
// script to the end before any other command, so no read-modify-write happens from Node.

/** Stores (or deletes) a record and announces it. KEYS: record; ARGV: channel, message, ttl, delete. */
export const PUT = `
if ARGV[4] == '1' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'u', '0')
  if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

/**
 * A cooldown that only lengthens: stored and announced when it ends after the stored one, else
 * the stored record comes back. KEYS: record; ARGV: channel, message, until, ttl.
 */
export const LENGTHEN = `
local u = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
if tonumber(ARGV[3]) > u then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'u', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('PUBLISH', ARGV[1], ARGV[2])
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

/** Gives a semaphore permit back and wakes the waiters. KEYS: semaphore; ARGV: token, channel, scope. */
export const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;
