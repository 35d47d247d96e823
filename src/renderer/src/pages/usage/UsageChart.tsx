import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { UsagePoint } from '../../../../shared/contract';

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1'];
/** Groups beyond this are summed as "other", so the chart stays readable. */
const MAX_GROUPS = COLORS.length - 1;

export type Measure = 'tokens' | 'cost';

function value(p: UsagePoint, measure: Measure): number {
  return measure === 'cost' ? p.costUsd : p.inputTokens + p.outputTokens;
}

/** Buckets and, per group, its values stacked on the groups before it (largest first). */
export function stack(
  points: UsagePoint[],
  measure: Measure,
): { labels: string[]; data: number[][] } {
  const totals = new Map<string, number>();
  for (const p of points) totals.set(p.group, (totals.get(p.group) ?? 0) + value(p, measure));
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)!);
  const labels = ranked.slice(0, MAX_GROUPS).map((g) => g || '(none)');
  const other = ranked.length > MAX_GROUPS;
  if (other) labels.push('other');
  const index = new Map(ranked.map((g, i) => [g, Math.min(i, MAX_GROUPS)]));
  const times = [...new Set(points.map((p) => p.at))].sort((a, b) => a - b);
  const row = new Map(times.map((t, i) => [t, i]));
  const series = labels.map(() => new Array<number>(times.length).fill(0));
  for (const p of points) series[index.get(p.group)!]![row.get(p.at)!]! += value(p, measure);
  for (let s = 1; s < series.length; s++) {
    for (let i = 0; i < times.length; i++) series[s]![i]! += series[s - 1]![i]!;
  }
  return { labels, data: [times.map((t) => t / 1000), ...series] };
}

/** Tokens or cost over time, stacked by the chosen grouping (uPlot, drawn on a canvas). */
export function UsageChart({
  points,
  measure,
  since,
}: {
  points: UsagePoint[];
  measure: Measure;
  /** Start of the time shown (epoch ms); it ends now. */
  since: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { labels, data } = stack(points, measure);
    const fmt = (v: number) => (measure === 'cost' ? `$${v.toFixed(4)}` : String(Math.round(v)));
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height: 240,
      // The whole time asked for, whatever buckets have data; counts start at zero.
      scales: {
        x: { time: true, range: () => [since / 1000, Date.now() / 1000] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      series: [
        {},
        ...labels.map((label, i) => ({
          label,
          stroke: COLORS[i % COLORS.length]!,
          fill: `${COLORS[i % COLORS.length]!}66`,
          value: (_u: uPlot, v: number | null) => (v === null ? '' : fmt(v)),
        })),
      ],
      axes: [{}, { values: (_u, vals) => vals.map(fmt), size: 70 }],
    };
    // Later series are drawn over earlier ones: draw the tallest (last stacked) first.
    opts.series = [opts.series[0]!, ...opts.series.slice(1).reverse()];
    const chart = new uPlot(opts, [data[0]!, ...data.slice(1).reverse()] as uPlot.AlignedData, el);
    const resize = () => chart.setSize({ width: Math.max(320, el.clientWidth), height: 240 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [points, measure, since]);
  return <div ref={box} className="usage-chart" data-testid="usage-chart" />;
}
