import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Door } from '../../src/main/engine/proxy/pipeline/context';
import type { PipelineDeps } from '../../src/main/engine/proxy/pipeline/deps';
import { host } from '../../src/main/engine/proxy/pipeline/host';

function run(headers: IncomingHttpHeaders, bound = '127.0.0.1'): string {
  const door = { req: { headers } } as unknown as Door;
  const decision = host.run(door, { host: bound } as PipelineDeps);
  if (decision instanceof Promise) throw new Error('the host check does not wait');
  return decision.kind === 'reply' ? decision.error.code : decision.kind;
}

describe('host stage: a Host let through once is not a pass for anything else', () => {
  it('another Host, an Origin or another bound address is checked again', () => {
    expect(run({ host: 'localhost:4141' })).toBe('continue');
    expect(run({ host: 'localhost:4141' })).toBe('continue');
    expect(run({ host: 'evil.example:4141' })).toBe('forbidden_host');
    expect(run({ host: 'localhost:4141', origin: 'http://evil.example' })).toBe('forbidden_origin');
    expect(run({ host: 'localhost:4141' })).toBe('continue');
    // Bound to a LAN address, the same Host (loopback) still passes; a stranger's does not.
    expect(run({ host: 'localhost:4141' }, '192.168.1.20')).toBe('continue');
    expect(run({ host: '10.0.0.9:4141' }, '192.168.1.20')).toBe('forbidden_host');
    expect(run({ host: '192.168.1.20:4141' }, '192.168.1.20')).toBe('continue');
    expect(run({ host: '192.168.1.20:4141' }, '127.0.0.1')).toBe('forbidden_host');
    expect(run({})).toBe('forbidden_host');
  });
});
