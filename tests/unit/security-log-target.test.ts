import { describe, expect, it } from 'vitest';
import { targetForLog } from '../../src/main/engine/proxy/server';

describe('request targets in the log', () => {
  it('never show the query, where a Gemini client puts its key', () => {
    expect(targetForLog('/v1beta/models/m:generateContent?key=sk-secret-123')).toBe(
      '/v1beta/models/m:generateContent',
    );
    expect(targetForLog('/v1/messages?beta=true&key=sk-secret-123')).not.toContain('sk-secret');
  });

  it('are shortened, and an absent target is empty', () => {
    expect(targetForLog(`/v1/${'a'.repeat(5000)}`)).toHaveLength(201);
    expect(targetForLog(undefined)).toBe('');
  });
});
