import { useEngineNow } from '../hooks';
import { RATE_BUCKET_MS, RATE_BUCKETS, rateWindow } from '../state/model';
import { useDashboard } from '../state/store';

/** Requests and errors per 10 s over the last 10 minutes, as fixed-size bars (no reflow). */
export function RateChart() {
  const rate = useDashboard((s) => s.rate);
  const now = useEngineNow(2000);
  const buckets = rateWindow(rate, now);
  const max = Math.max(1, ...buckets.map((b) => b.requests));
  const total = buckets.reduce((n, b) => n + b.requests, 0);
  const errors = buckets.reduce((n, b) => n + b.errors, 0);
  const width = 600;
  const height = 90;
  const barW = width / RATE_BUCKETS;
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${total} requests and ${errors} errors in the last ${(RATE_BUCKETS * RATE_BUCKET_MS) / 60_000} minutes`}
      >
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="chart-axis" />
        {buckets.map((b, i) => {
          const h = (b.requests / max) * (height - 4);
          const eh = (b.errors / max) * (height - 4);
          return (
            <g key={b.start}>
              <rect
                x={i * barW + 1}
                y={height - h}
                width={barW - 2}
                height={h}
                className="bar-ok"
              />
              <rect
                x={i * barW + 1}
                y={height - eh}
                width={barW - 2}
                height={eh}
                className="bar-bad"
              />
            </g>
          );
        })}
      </svg>
      <figcaption className="muted small">
        <span className="legend legend-ok" /> requests <span className="legend legend-bad" /> errors
        · last 10 min, 10 s per bar · peak {max === 1 && total === 0 ? 0 : max} per bar
      </figcaption>
    </figure>
  );
}
