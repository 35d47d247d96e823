import type { IncomingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkAdminToken,
  checkHostAndOrigin,
  isJsonContentType,
  isLoopbackAddress,
  isLoopbackHost,
  presentedKey,
} from '../../src/main/engine/wire/guard';

const LOOPBACK = { host: '127.0.0.1' };

function check(headers: IncomingHttpHeaders, policy = LOOPBACK): string | null {
  return checkHostAndOrigin(headers, policy);
}

describe('a Host that is not the bound address is refused (DNS rebinding)', () => {
  it('loopback names are this machine: localhost, 127.0.0.1, [::1], with or without a port', () => {
    for (const host of [
      'localhost:4141',
      '127.0.0.1:4141',
      '[::1]:4141',
      'localhost',
      '127.0.0.1',
      '[::1]',
      'LOCALHOST:4141',
    ]) {
      expect(check({ host })).toBeNull();
    }
  });

  it('a rebinding host name is refused, with the reason', () => {
    for (const host of [
      'evil.example:4141',
      'evil.example',
      'localhost.evil.example:4141',
      '192.168.1.20:4141',
    ]) {
      const reason = check({ host });
      expect(reason).toContain(`Host "${host}" is not this gateway`);
      expect(reason).toContain('DNS rebinding');
    }
  });

  it('a missing Host header is refused', () => {
    expect(check({})).toBe('missing Host header');
  });

  it('a non-loopback bind accepts its own address and loopback names, nothing else', () => {
    const lan = { host: '192.168.1.20' };
    expect(check({ host: '192.168.1.20:4141' }, lan)).toBeNull();
    expect(check({ host: 'localhost:4141' }, lan)).toBeNull();
    expect(check({ host: 'evil.example:4141' }, lan)).not.toBeNull();
  });

  it('an IPv6 bind is compared in brackets', () => {
    expect(check({ host: '[::1]:4141' }, { host: '::1' })).toBeNull();
    expect(check({ host: '[fd00::5]:4141' }, { host: 'fd00::5' })).toBeNull();
    expect(check({ host: '[fd00::6]:4141' }, { host: 'fd00::5' })).not.toBeNull();
  });

  it('a wildcard bind (0.0.0.0 or ::) accepts any Host', () => {
    for (const bind of ['0.0.0.0', '::']) {
      expect(check({ host: 'my-laptop.lan:4141' }, { host: bind })).toBeNull();
      expect(check({ host: '10.0.0.7:4141' }, { host: bind })).toBeNull();
    }
  });
});

describe('a foreign Origin is refused; the gateway’s own pages are allowed', () => {
  it('no Origin (non-browser clients) is allowed', () => {
    expect(check({ host: '127.0.0.1:4141' })).toBeNull();
  });

  it('an Origin on the same host and port is allowed', () => {
    expect(check({ host: '127.0.0.1:4141', origin: 'http://127.0.0.1:4141' })).toBeNull();
    expect(check({ host: 'localhost:4141', origin: 'http://localhost:4141' })).toBeNull();
    expect(check({ host: '[::1]:4141', origin: 'http://[::1]:4141' })).toBeNull();
  });

  it('a foreign Origin is refused, even on a wildcard bind', () => {
    const reason = check({ host: '127.0.0.1:4141', origin: 'https://evil.example' });
    expect(reason).toContain('Origin "https://evil.example" is not allowed');
    expect(
      check({ host: 'box.lan:4141', origin: 'https://evil.example' }, { host: '0.0.0.0' }),
    ).not.toBeNull();
  });

  it('another port or another loopback name is a different origin', () => {
    expect(check({ host: '127.0.0.1:4141', origin: 'http://127.0.0.1:3000' })).not.toBeNull();
    expect(check({ host: '127.0.0.1:4141', origin: 'http://localhost:4141' })).not.toBeNull();
  });

  it('the opaque "null" Origin (sandboxed frames, file: pages) is refused', () => {
    expect(check({ host: '127.0.0.1:4141', origin: 'null' })).toBe('Origin "null" is not allowed');
  });
});

describe('isLoopbackAddress: 127.0.0.0/8, ::1 and IPv4-mapped loopback', () => {
  it('loopback peers', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopbackAddress(a)).toBe(true);
    }
  });

  it('other peers', () => {
    for (const a of [
      '10.0.0.1',
      '192.168.1.20',
      '::ffff:10.0.0.1',
      '::2',
      'fe80::1',
      '',
      undefined,
    ]) {
      expect(isLoopbackAddress(a)).toBe(false);
    }
  });

  it('isLoopbackHost also knows the names localhost and [::1]', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('example.com')).toBe(false);
  });
});

describe('proxy endpoints accept Authorization: Bearer <key> or x-api-key: <key>', () => {
  it('reads a Bearer token, any case, trimming spaces', () => {
    expect(presentedKey({ authorization: 'Bearer bw-key-1' })).toBe('bw-key-1');
    expect(presentedKey({ authorization: 'bearer   bw-key-1  ' })).toBe('bw-key-1');
  });

  it('reads any Bearer spelling the same as the pattern `^bearer\\s+`, then trimmed', () => {
    const spelling = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr', 'Bearer:', 'Bear');
    const space = fc.constantFrom('', ' ', '  ', '\t', '\u00a0', '\u2028', ' \t ');
    const key = fc.string({ unit: fc.constantFrom('a', 'K', '-', '1', ' ', '\t', '\u3000') });
    fc.assert(
      fc.property(spelling, space, key, space, (word, gap, secret, tail) => {
        const auth = `${word}${gap}${secret}${tail}`;
        const expected = /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() : null;
        expect(presentedKey({ authorization: auth })).toBe(expected);
      }),
    );
  });

  it('reads x-api-key (what Anthropic clients send)', () => {
    expect(presentedKey({ 'x-api-key': 'bw-key-2' })).toBe('bw-key-2');
  });

  it('prefers Bearer when both are present', () => {
    expect(presentedKey({ authorization: 'Bearer from-bearer', 'x-api-key': 'from-x' })).toBe(
      'from-bearer',
    );
  });

  it('other schemes, empty values and missing headers present no key', () => {
    expect(presentedKey({})).toBeNull();
    expect(presentedKey({ 'x-api-key': '' })).toBeNull();
    expect(presentedKey({ authorization: 'Basic dXNlcjpwYXNz' })).toBeNull();
    expect(presentedKey({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'bw-key-3' })).toBe(
      'bw-key-3',
    );
  });
});

describe('admin endpoints need Authorization: Bearer <admin token>', () => {
  const token = 'admin-token-abcdef0123456789';

  it('accepts the token as a Bearer credential', () => {
    expect(checkAdminToken({ authorization: `Bearer ${token}` }, token)).toBe(true);
    expect(checkAdminToken({ authorization: `BEARER  ${token}` }, token)).toBe(true);
  });

  it('refuses a wrong token, a bare token, x-api-key and no header', () => {
    expect(checkAdminToken({ authorization: `Bearer ${token}x` }, token)).toBe(false);
    expect(checkAdminToken({ authorization: 'Bearer wrong' }, token)).toBe(false);
    expect(checkAdminToken({ authorization: token }, token)).toBe(false);
    expect(checkAdminToken({ 'x-api-key': token }, token)).toBe(false);
    expect(checkAdminToken({}, token)).toBe(false);
  });
});

describe('a non-JSON body on a JSON endpoint is refused', () => {
  it('application/json with parameters, any case, and application/<x>+json are JSON', () => {
    for (const t of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/vnd.api+json',
      ' application/json ;charset=UTF-8',
    ]) {
      expect(isJsonContentType(t)).toBe(true);
    }
  });

  it('anything else is not', () => {
    for (const t of [
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'json',
      '',
      undefined,
    ]) {
      expect(isJsonContentType(t)).toBe(false);
    }
  });
});

describe('loopback means a real loopback address, not a name that starts like one', () => {
  it('refuses a rebinding host such as 127.0.0.1.nip.io', () => {
    expect(isLoopbackHost('127.0.0.1.nip.io')).toBe(false);
    expect(isLoopbackHost('127.evil.example')).toBe(false);
    expect(isLoopbackAddress('127.0.0.300')).toBe(false);
    expect(
      checkHostAndOrigin(
        { host: '127.0.0.1.nip.io:4141', origin: 'http://127.0.0.1.nip.io:4141' },
        { host: '127.0.0.1' },
      ),
    ).toContain('DNS rebinding');
  });
});
