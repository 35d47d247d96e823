// Team mode in the views: the tray and the dashboard say "team state unavailable" while Redis is
// unreachable, and the `team.status` event moves the dashboard without a refetch.
import { describe, expect, it } from 'vitest';
import { quotaWaitLine, statusLine, trayLevel } from '../../src/main/shell/tray-state';
import { applyEvent } from '../../src/renderer/src/state/apply-event';
import {
  applySnapshot,
  type DashboardModel,
  emptyModel,
  incidents,
} from '../../src/renderer/src/state/model';
import type { Snapshot, TeamView } from '../../src/shared/contract';
import { healthySnapshot } from '../support/snapshot';

const AT = 1_800_000_000_000;

function snapshot(team?: TeamView): Snapshot {
  return healthySnapshot(AT, team ? { team } : {});
}

const DEGRADED: TeamView = { backend: 'redis', status: 'degraded' };
const CONNECTED: TeamView = { backend: 'redis', status: 'connected' };

describe('team state in the tray and the dashboard', () => {
  it('the tray says so and shows the degraded icon; connected or local says nothing', () => {
    const input = { snapshot: snapshot(DEGRADED), startupError: null };
    expect(statusLine(input)).toBe('Running, team state unavailable');
    expect(trayLevel(input)).toBe('degraded');
    for (const team of [CONNECTED, undefined]) {
      const ok = { snapshot: snapshot(team), startupError: null };
      expect(statusLine(ok)).toBe('Running, all healthy');
      expect(trayLevel(ok)).toBe('ok');
    }
  });

  it('the dashboard lists it as an incident and follows team.status events', () => {
    expect(incidents(snapshot(DEGRADED)).map((i) => i.title)).toEqual(['team state unavailable']);
    expect(incidents(snapshot(CONNECTED))).toEqual([]);
    let model: DashboardModel = applySnapshot(emptyModel, snapshot(CONNECTED), AT);
    model = applyEvent(model, { type: 'team.status', at: AT + 1, team: DEGRADED });
    expect(model.snapshot?.team).toEqual(DEGRADED);
    expect(model.activity[0]?.text).toBe('team state unavailable');
    model = applyEvent(model, { type: 'team.status', at: AT + 2, team: CONNECTED });
    expect(model.snapshot?.team).toEqual(CONNECTED);
    expect(incidents(model.snapshot!)).toEqual([]);
  });
});

describe('requests waiting for a quota reset in the tray (issue 29)', () => {
  it('says how many wait and when the earliest reset comes', () => {
    const wait = (id: string, until: number) => ({
      id,
      model: 'coder',
      key: null,
      since: AT,
      until,
      reason: 'quota_exhausted',
      subject: 'oa-1',
    });
    const s = healthySnapshot(AT, {
      quotaWaits: [
        wait('qw-0', Date.UTC(2027, 0, 15, 14, 5)),
        wait('qw-1', Date.UTC(2027, 0, 15, 14, 9)),
      ],
    });
    expect(quotaWaitLine(s, 'UTC')).toBe('2 requests waiting for a quota reset at 14:05');
    expect(statusLine({ snapshot: s, startupError: null })).toMatch(
      /^Running, 2 requests waiting for a quota reset at \d\d:\d\d$/,
    );
    expect(quotaWaitLine(healthySnapshot(AT, {}), 'UTC')).toBeNull();
  });
});
