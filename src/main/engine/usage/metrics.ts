// Counters and latency histograms of answered requests for `GET /metrics`, kept in memory
// (a few map updates per request) and written in the Prometheus text format on a scrape.

import type { UsageSample } from './accounting';

export type Labels = Record<string, string>;

export interface Sample {
  labels: Labels;
  value: number;
  /** Appended to the family name (`_bucket`, `_sum`, `_count`). */
  suffix?: string;
}

/** One metric family in the Prometheus text format (version 0.0.4). */
export function family(name: string, help: string, type: string, samples: Sample[]): string {
  let out = `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
  for (const s of samples)
    out += `${name}${s.suffix ?? ''}${labelText(s.labels)} ${num(s.value)}\n`;
  return out;
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function num(v: number): string {
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  return Number.isFinite(v) ? String(v) : 'NaN';
}

/** Seconds; spans a quick non-streamed answer to a long agent stream. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * Makes a series' labels from up to three values, only when the series is new: they serve a
 * scrape, and the request path should not build them every time. A function of the module, not
 * a closure, so that passing it allocates nothing.
 */
type LabelsOf = (a: string, b: string, c: string) => Labels;

class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number }>();

  observe(key: string, seconds: number, labels: LabelsOf, a: string): void {
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: labels(a, '', ''),
        counts: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
      };
      this.series.set(key, s);
    }
    s.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++)
      if (seconds <= LATENCY_BUCKETS[i]!) s.counts[i]!++;
    // The +Inf bucket is the count, kept as the last slot.
    s.counts[LATENCY_BUCKETS.length]!++;
  }

  samples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.series.values()) {
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
        const le = String(LATENCY_BUCKETS[i]);
        out.push({ labels: { ...s.labels, le }, value: s.counts[i]!, suffix: '_bucket' });
      }
      const count = s.counts[LATENCY_BUCKETS.length] ?? 0;
      out.push({ labels: { ...s.labels, le: '+Inf' }, value: count, suffix: '_bucket' });
      out.push({ labels: s.labels, value: s.sum, suffix: '_sum' });
      out.push({ labels: s.labels, value: count, suffix: '_count' });
    }
    return out;
  }
}

class Counter {
  private readonly series = new Map<string, Sample>();

  add(key: string, by: number, labels: LabelsOf, a: string, b = '', c = ''): void {
    const s = this.series.get(key);
    if (s) s.value += by;
    else this.series.set(key, { labels: labels(a, b, c), value: by });
  }

  samples(): Sample[] {
    return [...this.series.values()];
  }
}

const TOKEN_KINDS = [
  ['input', 'inputTokens'],
  ['output', 'outputTokens'],
  ['cache_read', 'cacheReadTokens'],
  ['cache_write', 'cacheWriteTokens'],
  ['reasoning', 'reasoningTokens'],
] as const;

/** The error class of a request its client left (as `markClientAbort` records it). */
const CLIENT_ABORT = 'client_abort';

const byStatus: LabelsOf = (provider, connection, code) => ({ provider, connection, code });
const byClass: LabelsOf = (cls) => ({ class: cls });
const byProvider: LabelsOf = (provider) => ({ provider });
const byModel: LabelsOf = (provider, model) => ({ provider, model });
const byTokenType: LabelsOf = (provider, model, type) => ({ provider, model, type });

/** What a scrape needs of one answered request. */
export interface ObservedRequest {
  status: number;
  errorClass: string | null;
  latencyMs: number;
  ttfbMs: number | null;
}

/**
 * Model series kept by name; later models share `model="other"`. A provider that routes any
 * model (`provider/<anything>`) lets a client invent one per request, and every series is
 * kept for the life of the process and in every scrape.
 */
export const MAX_MODEL_SERIES = 500;
const OTHER_MODEL = 'other';

export class RequestMetrics {
  private readonly models = new Set<string>();
  private readonly requests = new Counter();
  private readonly errors = new Counter();
  private readonly tokens = new Counter();
  private readonly cost = new Counter();
  private readonly latency = new Histogram();
  private readonly ttfb = new Histogram();

  observe(r: ObservedRequest, s: UsageSample): void {
    const provider = s.provider || 'none';
    const connection = s.connection || 'none';
    const code = `${Math.floor(r.status / 100)}xx`;
    const pc = `${provider}\u0000${connection}`;
    this.requests.add(`${pc}\u0000${code}`, 1, byStatus, provider, connection, code);
    if (r.errorClass) this.errors.add(r.errorClass, 1, byClass, r.errorClass);
    this.latency.observe(provider, r.latencyMs / 1000, byProvider, provider);
    if (r.ttfbMs !== null) this.ttfb.observe(provider, r.ttfbMs / 1000, byProvider, provider);
    if (!s.provider) return;
    let pm = `${s.provider}\u0000${s.model}`;
    let model = s.model;
    if (!this.models.has(pm)) {
      if (this.models.size < MAX_MODEL_SERIES) this.models.add(pm);
      else {
        model = OTHER_MODEL;
        pm = `${s.provider}\u0000${OTHER_MODEL}`;
      }
    }
    for (const [type, field] of TOKEN_KINDS) {
      if (s[field] > 0) {
        this.tokens.add(`${pm}\u0000${type}`, s[field], byTokenType, provider, model, type);
      }
    }
    if (s.costUsd) this.cost.add(pm, s.costUsd, byModel, provider, model);
  }

  /** A request its client gave up on before it was in (no log row, so not `observe`d). */
  clientAbort(): void {
    this.errors.add(CLIENT_ABORT, 1, byClass, CLIENT_ABORT);
  }

  text(): string {
    return (
      family(
        'breakwater_requests_total',
        'Proxy requests answered, by provider, connection and status class.',
        'counter',
        this.requests.samples(),
      ) +
      family(
        'breakwater_request_errors_total',
        'Proxy requests that failed, by error class.',
        'counter',
        this.errors.samples(),
      ) +
      family(
        'breakwater_request_duration_seconds',
        'Time from a request arriving to its answer ending, by provider.',
        'histogram',
        this.latency.samples(),
      ) +
      family(
        'breakwater_time_to_first_byte_seconds',
        'Time from a request arriving to the first byte of its answer, by provider.',
        'histogram',
        this.ttfb.samples(),
      ) +
      family(
        'breakwater_tokens_total',
        'Tokens as providers reported them, by provider, model and type.',
        'counter',
        this.tokens.samples(),
      ) +
      family(
        'breakwater_cost_usd_total',
        'Cost in USD from the model price table, by provider and model.',
        'counter',
        this.cost.samples(),
      )
    );
  }
}
