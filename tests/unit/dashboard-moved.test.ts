// The browser dashboard follows the gateway to its new address (event `gateway.moved`).
import { describe, expect, it } from 'vitest';
import { movedDashboardUrl } from '../../src/renderer/src/bridge/http';

const page = { protocol: 'http:', hostname: '127.0.0.1', port: '4141' };

describe('movedDashboardUrl', () => {
  it('goes to the new port with the token in the fragment', () => {
    expect(movedDashboardUrl(page, { host: '127.0.0.1', port: 4242 }, 'tok/en')).toBe(
      'http://127.0.0.1:4242/ui/#token=tok%2Fen',
    );
  });
  it('keeps the name the browser used for a wildcard bind, brackets an IPv6 host', () => {
    const lan = { ...page, hostname: 'gw.lan' };
    expect(movedDashboardUrl(lan, { host: '0.0.0.0', port: 5000 }, null)).toBe(
      'http://gw.lan:5000/ui/',
    );
    expect(movedDashboardUrl(page, { host: '::1', port: 5000 }, null)).toBe(
      'http://[::1]:5000/ui/',
    );
  });
  it('stays when the page is already there', () => {
    expect(movedDashboardUrl(page, { host: '127.0.0.1', port: 4141 }, 't')).toBeNull();
  });
});
