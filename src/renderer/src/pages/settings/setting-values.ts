// How a setting's value is shown, read back from what was typed, grouped and bounded.

import type { SettingView } from '../../../../shared/contract';

export function display(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Turns what the user typed back into the setting's type; the API validates the rest. */
export function parseInput(s: SettingView, raw: string): unknown {
  if (typeof s.defaultValue === 'number') {
    const t = raw.trim();
    if (t === '') return raw;
    const n = Number(t);
    return Number.isFinite(n) ? n : raw;
  }
  if (typeof s.defaultValue === 'object' && s.defaultValue !== null) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

export function group(key: string): string {
  const dot = key.indexOf('.');
  return dot === -1 ? 'general' : key.slice(0, dot);
}

export function range(s: SettingView): string | null {
  if (s.min === null && s.max === null) return null;
  const u = s.unit ? ` ${s.unit}` : '';
  return `${s.min ?? '…'}–${s.max ?? '…'}${u}`;
}
