import { useEffect, useState } from 'react';
import { useDashboard } from './state/store';

/** Engine time, ticking every `ms` (only components that show countdowns use this). */
export function useEngineNow(ms = 1000): number {
  const skew = useDashboard((s) => s.skew);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now - skew;
}

/** `1:05`, `45 s`, `2 h 10 min`: short and fixed-width friendly. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}:${String(s % 60).padStart(2, '0')}`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

export function formatTime(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour12: false });
}
