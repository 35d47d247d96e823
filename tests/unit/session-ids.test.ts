import { describe, expect, it } from 'vitest';
import { bodySessionId, sessionIdOf } from '../../src/main/engine/resilience/affinity';

describe('bodySessionId', () => {
  it('takes prompt_cache_key first, trimmed and capped', () => {
    expect(bodySessionId(' s1 ', { user_id: 'user_x_session_0c8e7a51-aaaa' })).toBe('s1');
    expect(bodySessionId('k'.repeat(300), null)).toHaveLength(256);
    expect(bodySessionId('  ', null)).toBeNull();
  });

  it("reads the session of Claude Code's user_id, as a suffix or a JSON text", () => {
    const suffix = 'user_3f2a_account_9b1c0d2e-1111_session_0c8e7a51-aaaa-bbbb';
    expect(bodySessionId(undefined, { user_id: suffix })).toBe('0c8e7a51-aaaa-bbbb');
    const json = JSON.stringify({ device_id: 'd', session_id: 'sess-42' });
    expect(bodySessionId(undefined, { user_id: json })).toBe('sess-42');
  });

  it('a user id that carries no session is not one', () => {
    expect(bodySessionId(undefined, { user_id: 'user-123' })).toBeNull();
    expect(bodySessionId(undefined, { user_id: '{not json' })).toBeNull();
    expect(bodySessionId(undefined, 'metadata')).toBeNull();
    expect(bodySessionId(42, undefined)).toBeNull();
  });

  it('headers are read as before', () => {
    expect(sessionIdOf({ 'x-claude-code-session-id': 'cc-1' })).toBe('cc-1');
  });
});
