// The update checker's rules without Electron: where the feed comes from, when it checks, and
// that nothing is loaded (so nothing reaches the network) without a feed.
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createUpdateChecker,
  type UpdateFeed,
  type Updater,
  updateFeed,
  updateStatus,
} from '../../src/main/shell/updates';

const quiet = { info() {}, warn() {}, error() {} };

function fakeUpdater(fail = false) {
  const calls: string[] = [];
  const updater = Object.assign(new EventEmitter(), {
    autoDownload: false,
    autoInstallOnAppQuit: false,
    logger: null,
    setFeedURL: (o: { url: string }) => calls.push(`feed ${o.url}`),
    checkForUpdates: () => {
      calls.push('check');
      return fail ? Promise.reject(new Error('feed answered 404')) : Promise.resolve(null);
    },
    quitAndInstall: () => calls.push('install'),
  });
  return { updater: updater as unknown as Updater & EventEmitter, calls };
}

afterEach(() => vi.useRealTimers());

describe('updateFeed', () => {
  it('is off in a development run, whatever is configured', () => {
    const feed = updateFeed({
      packaged: false,
      env: { BREAKWATER_UPDATE_URL: 'https://u.example/' },
      resourcesPath: undefined,
    });
    expect(feed).toEqual({ kind: 'off', reason: 'Updates: development build' });
  });

  it('takes the environment, then desktop.json, then the feed built into the package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bw-updates-'));
    try {
      const base = { packaged: true, resourcesPath: dir };
      expect(updateFeed({ ...base, env: {} })).toEqual({
        kind: 'off',
        reason: 'Updates not configured',
      });
      expect(updateFeed({ ...base, env: {}, prefsUrl: 'https://p.example/x' })).toEqual({
        kind: 'on',
        url: 'https://p.example/x',
      });
      expect(
        updateFeed({
          ...base,
          env: { BREAKWATER_UPDATE_URL: 'https://e.example/' },
          prefsUrl: 'https://p.example/',
        }),
      ).toEqual({ kind: 'on', url: 'https://e.example/' });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'app-update.yml'), 'provider: generic\nurl: https://b.example/\n');
      expect(updateFeed({ ...base, env: {} })).toEqual({ kind: 'on', url: null });
      expect(updateFeed({ ...base, env: { BREAKWATER_UPDATE_URL: 'file:///etc' } })).toMatchObject({
        kind: 'off',
        reason: expect.stringMatching(/not an http\(s\) URL/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createUpdateChecker', () => {
  const on: UpdateFeed = { kind: 'on', url: 'https://u.example/' };

  it('without a feed loads nothing and cannot check', async () => {
    const load = vi.fn();
    const checker = createUpdateChecker({
      feed: { kind: 'off', reason: 'Updates not configured' },
      load,
      log: quiet,
      onReady() {},
      onChange() {},
    });
    await checker.start();
    checker.check();
    expect(load).not.toHaveBeenCalled();
    expect(updateStatus(checker.state())).toEqual({
      label: 'Updates not configured',
      canCheck: false,
      canInstall: false,
    });
  });

  it('checks at start and every interval, but not over a download', async () => {
    vi.useFakeTimers();
    const { updater, calls } = fakeUpdater();
    const ready: string[] = [];
    const checker = createUpdateChecker({
      feed: on,
      load: async () => updater,
      log: quiet,
      onReady: (v) => ready.push(v),
      onChange() {},
      intervalMs: 1000,
    });
    await checker.start();
    expect(calls).toEqual(['feed https://u.example/', 'check']);
    expect(updater.autoInstallOnAppQuit).toBe(true);
    vi.advanceTimersByTime(2000);
    expect(calls.filter((c) => c === 'check')).toHaveLength(3);

    updater.emit('update-available', { version: '2.0.0' });
    vi.advanceTimersByTime(5000);
    checker.check();
    expect(calls.filter((c) => c === 'check')).toHaveLength(3);
    updater.emit('update-downloaded', { version: '2.0.0' });
    expect(ready).toEqual(['2.0.0']);
    vi.advanceTimersByTime(5000);
    updater.emit('checking-for-update');
    expect(calls.filter((c) => c === 'check')).toHaveLength(3);
    expect(updateStatus(checker.state()).canInstall).toBe(true);
    checker.install();
    expect(calls.at(-1)).toBe('install');
    checker.dispose();
  });

  it('a failed check or download says why and can be tried again', async () => {
    const { updater } = fakeUpdater(true);
    const checker = createUpdateChecker({
      feed: on,
      load: async () => updater,
      log: quiet,
      onReady() {},
      onChange() {},
    });
    await checker.start();
    await vi.waitFor(() =>
      expect(updateStatus(checker.state())).toEqual({
        label: 'Update check failed: feed answered 404',
        canCheck: true,
        canInstall: false,
      }),
    );
    checker.install();
    checker.dispose();
  });
});
