// What the desktop app remembers between runs that is not gateway state: the window's place and
// size, and whether closing it goes to the tray. Kept in `<data dir>/desktop.json` (the engine's
// database is for the gateway), read once at start, written in the background.
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DesktopPrefs {
  bounds?: Rect;
  maximized?: boolean;
  /** Overrides the guess of closeHidesWindow (a GNOME user with the AppIndicator extension). */
  closeToTray?: boolean;
  /** The release feed update checks read (a generic electron-updater feed URL). */
  updateUrl?: string;
}

const isInt = (v: unknown): v is number => Number.isInteger(v);

function rectOf(v: unknown): Rect | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  const { x, y, width, height } = r;
  if (!isInt(x) || !isInt(y) || !isInt(width) || !isInt(height)) return undefined;
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

/** Reads what it can: a damaged or hand-edited file never stops the app. */
export function parsePrefs(text: string): DesktopPrefs {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof raw !== 'object' || raw === null) return {};
  const r = raw as Record<string, unknown>;
  const prefs: DesktopPrefs = {};
  const bounds = rectOf(r.bounds);
  if (bounds) prefs.bounds = bounds;
  if (typeof r.maximized === 'boolean') prefs.maximized = r.maximized;
  if (typeof r.closeToTray === 'boolean') prefs.closeToTray = r.closeToTray;
  if (typeof r.updateUrl === 'string') prefs.updateUrl = r.updateUrl;
  return prefs;
}

/**
 * The saved bounds when they still overlap a display by a usable amount (a monitor may have been
 * unplugged since); otherwise none, and the window opens centred.
 */
export function placeOnScreen(
  bounds: Rect | undefined,
  workAreas: readonly Rect[],
): Rect | undefined {
  if (!bounds) return undefined;
  const MIN_VISIBLE = 64;
  const visible = workAreas.some((a) => {
    const w = Math.min(bounds.x + bounds.width, a.x + a.width) - Math.max(bounds.x, a.x);
    const h = Math.min(bounds.y + bounds.height, a.y + a.height) - Math.max(bounds.y, a.y);
    return w >= MIN_VISIBLE && h >= MIN_VISIBLE;
  });
  return visible ? bounds : undefined;
}

export function loadPrefs(file: string): DesktopPrefs {
  return existsSync(file) ? parsePrefs(readFileSync(file, 'utf8')) : {};
}

/** Writes through a temporary file, so a crash mid-write leaves the old file whole. */
export async function savePrefs(file: string, prefs: DesktopPrefs): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, `${JSON.stringify(prefs, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}
