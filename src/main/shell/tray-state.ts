// What the tray shows, as pure functions of the engine's snapshot and the startup outcome:
// which icon (worst state wins), the tooltip, and the context menu's items. `tray.ts` turns
// these into Electron objects; the decisions are unit-tested here without Electron.

import type { Snapshot } from '../../shared/contract';

/** Worst first: stopped (not serving) > open (a circuit is open) > degraded > ok. */
export type TrayLevel = 'ok' | 'degraded' | 'open' | 'stopped';

export interface TrayInput {
  /** Null until the first snapshot, or when the engine could not be created. */
  snapshot: Snapshot | null;
  /** Why the gateway is not serving (port in use, bad config, …); null when it serves. */
  startupError: string | null;
  /** Combo names, for the active-combo quick switch. */
  combos?: readonly string[];
  /** The update checker's state, one line (`Updates not configured`, `Update 1.2.0 ready`). */
  updates?: { label: string; canCheck: boolean; canInstall: boolean };
}

const TERMINAL = new Set(['banned', 'expired', 'credits_exhausted']);

function cooling(s: Snapshot): string[] {
  return s.connections
    .filter(
      (c) => TERMINAL.has(c.status) || (c.rateLimitedUntil !== null && c.rateLimitedUntil > s.at),
    )
    .map((c) => c.id);
}

export function trayLevel({ snapshot, startupError }: TrayInput): TrayLevel {
  if (startupError || !snapshot || snapshot.gateway.paused) return 'stopped';
  if (snapshot.breakers.some((b) => b.state === 'OPEN')) return 'open';
  const degraded =
    snapshot.breakers.some((b) => b.state === 'DEGRADED' || b.state === 'HALF_OPEN') ||
    cooling(snapshot).length > 0 ||
    snapshot.team?.status === 'degraded' ||
    snapshot.lockouts.some((l) => l.expiresAt > snapshot.at);
  return degraded ? 'degraded' : 'ok';
}

/** One line for the menu's status item and the start of the tooltip. */
export function statusLine(input: TrayInput): string {
  const { snapshot, startupError } = input;
  if (startupError) return `Not serving: ${startupError}`;
  if (!snapshot) return 'Starting…';
  if (snapshot.gateway.paused) return 'Paused: agents get 503';
  const open = snapshot.breakers.filter((b) => b.state === 'OPEN').map((b) => b.provider);
  if (open.length > 0) return `Circuit open: ${open.join(', ')}`;
  const cool = cooling(snapshot);
  const degraded = snapshot.breakers
    .filter((b) => b.state === 'DEGRADED' || b.state === 'HALF_OPEN')
    .map((b) => b.provider);
  const parts: string[] = [];
  const waiting = quotaWaitLine(snapshot);
  if (waiting) parts.push(waiting);
  if (snapshot.team?.status === 'degraded') parts.push('team state unavailable');
  if (degraded.length > 0) parts.push(`degraded: ${degraded.join(', ')}`);
  if (cool.length > 0)
    parts.push(`${cool.length} connection${cool.length === 1 ? '' : 's'} cooling`);
  return parts.length > 0 ? `Running, ${parts.join('; ')}` : 'Running, all healthy';
}

/**
 * "2 requests waiting for a quota reset at 14:05" (the earliest reset, local time), or null when
 * nothing waits. `timeZone` is for tests; the tray uses the machine's.
 */
export function quotaWaitLine(s: Snapshot, timeZone?: string): string | null {
  const waits = s.quotaWaits ?? [];
  if (waits.length === 0) return null;
  const at = new Date(Math.min(...waits.map((w) => w.until))).toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    ...(timeZone ? { timeZone } : {}),
  });
  return `${waits.length} request${waits.length === 1 ? '' : 's'} waiting for a quota reset at ${at}`;
}

/** Tooltips are short on every OS (Windows cuts at 127 characters). */
export function trayTooltip(input: TrayInput): string {
  const line = `Breakwater: ${statusLine(input)}`;
  const g = input.snapshot?.gateway;
  const full =
    g && !input.startupError ? `${line}\n${g.baseUrl} · ${g.requestsTotal} requests` : line;
  return full.length > 127 ? `${full.slice(0, 126)}…` : full;
}

export type TrayAction =
  | 'open-dashboard'
  | 'copy-base-url'
  | 'pause'
  | 'resume'
  | 'reset-breakers'
  | 'toggle-login'
  | 'open-logs'
  | 'open-data-folder'
  | 'edit-config'
  | 'check-updates'
  | 'install-update'
  | 'quit';

export type TrayMenuItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean; checked?: boolean }
  /** Radio items, one per combo plus "None": what the model "default" routes to. */
  | { kind: 'combos'; label: string; combos: { name: string; active: boolean }[] };

/** The active-combo submenu; absent while there is no combo to switch to. */
function comboSwitch(input: TrayInput): TrayMenuItem[] {
  const names = input.combos ?? [];
  if (!input.snapshot || names.length === 0) return [];
  const active = input.snapshot.gateway.activeCombo ?? '';
  const combos = [
    { name: '', active: active === '' },
    ...names.map((name) => ({ name, active: name === active })),
  ];
  return [{ kind: 'combos', label: `Active combo: ${active || 'none'}`, combos }];
}

/** "Check for updates…", or "Restart to update" once one is downloaded. */
function updateItems(input: TrayInput): TrayMenuItem[] {
  const u = input.updates;
  if (!u) return [];
  return [
    { kind: 'status', label: u.label },
    u.canInstall
      ? { kind: 'action', action: 'install-update', label: 'Restart to update', enabled: true }
      : {
          kind: 'action',
          action: 'check-updates',
          label: 'Check for updates…',
          enabled: u.canCheck,
        },
    { kind: 'separator' },
  ];
}

/** The context menu, top to bottom. Rebuilt only when this value changes (compare with JSON). */
export function trayMenu(input: TrayInput, opts: { openAtLogin: boolean | null }): TrayMenuItem[] {
  const { snapshot, startupError } = input;
  const serving = !startupError && snapshot !== null;
  const paused = snapshot?.gateway.paused ?? false;
  const tripped = snapshot?.breakers.some((b) => b.state !== 'CLOSED') ?? false;
  const items: TrayMenuItem[] = [
    { kind: 'status', label: statusLine(input) },
    { kind: 'separator' },
    { kind: 'action', action: 'open-dashboard', label: 'Open dashboard', enabled: true },
    {
      kind: 'action',
      action: 'copy-base-url',
      label: snapshot ? `Copy base URL (${snapshot.gateway.baseUrl})` : 'Copy base URL',
      enabled: serving,
    },
    { kind: 'separator' },
    paused
      ? { kind: 'action', action: 'resume', label: 'Resume', enabled: serving }
      : { kind: 'action', action: 'pause', label: 'Pause', enabled: serving },
    {
      kind: 'action',
      action: 'reset-breakers',
      label: 'Reset all breakers',
      enabled: serving && tripped,
    },
    ...comboSwitch(input),
    { kind: 'separator' },
    { kind: 'action', action: 'open-logs', label: 'Open logs', enabled: true },
    { kind: 'action', action: 'open-data-folder', label: 'Open data folder', enabled: true },
    { kind: 'action', action: 'edit-config', label: 'Edit config', enabled: true },
    { kind: 'separator' },
    ...updateItems(input),
  ];
  if (opts.openAtLogin !== null) {
    items.push({
      kind: 'action',
      action: 'toggle-login',
      label: 'Open at login',
      enabled: true,
      checked: opts.openAtLogin,
    });
  }
  items.push({ kind: 'action', action: 'quit', label: 'Quit Breakwater', enabled: true });
  return items;
}

/**
 * The icon file for a level: macOS menu bar uses Template images (black + alpha, tinted by the
 * OS); Windows and Linux use colour variants. Both come in 1x and @2x in `resources/`.
 */
export function trayIconFile(level: TrayLevel, platform: NodeJS.Platform): string {
  return platform === 'darwin' ? `tray-${level}Template.png` : `tray-${level}.png`;
}
