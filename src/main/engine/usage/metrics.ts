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
    this.at(key, labels, a, b, c).value += by;
  }

  /** The series itself, made when new: a caller that keeps it adds to it without a key. */
  at(key: string, labels: LabelsOf, a: string, b = '', c = ''): Sample {
    let s = this.series.get(key);
    if (!s) {
      s = { labels: labels(a, b, c), value: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  samples(): Sample[] {
    return [...this.series.values()];
  }
}

/** The `type` label of each token count a sample carries. */
export const TOKEN_KINDS = [
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

/** The token and cost series of one provider and model, made on first use. */
class ModelSeries {
  private readonly tokenSeries: Sample[] = [];
  private costSeries: Sample | null = null;

  constructor(
    private readonly tokens: Counter,
    private readonly costs: Counter,
    private readonly provider: string,
    private readonly model: string,
  ) {}

  token(kind: number): Sample {
    let s = this.tokenSeries[kind];
    if (!s) {
      const { provider, model } = this;
      const type = TOKEN_KINDS[kind]![0];
      s = this.tokens.at(
        `${provider}\u0000${model}\u0000${type}`,
        byTokenType,
        provider,
        model,
        type,
      );
      this.tokenSeries[kind] = s;
    }
    return s;
  }

  cost(): Sample {
    const { provider, model } = this;
    this.costSeries ??= this.costs.at(`${provider}\u0000${model}`, byModel, provider, model);
    return this.costSeries;
  }
}

export class RequestMetrics {
  /** Models with series of their own, of all providers. */
  private named = 0;
  private readonly requests = new Counter();
  private readonly errors = new Counter();
  private readonly tokens = new Counter();
  private readonly cost = new Counter();
  private readonly latency = new Histogram();
  private readonly ttfb = new Histogram();
  private readonly requestsBy = new Map<string, Map<string, Sample[]>>();
  private readonly modelsBy = new Map<string, Map<string, ModelSeries>>();

  observe(r: ObservedRequest, s: UsageSample): void {
    const provider = s.provider || 'none';
    const connection = s.connection || 'none';
    this.requestSeries(provider, connection, r.status).value++;
    if (r.errorClass) this.errors.add(r.errorClass, 1, byClass, r.errorClass);
    this.latency.observe(provider, r.latencyMs / 1000, byProvider, provider);
    if (r.ttfbMs !== null) this.ttfb.observe(provider, r.ttfbMs / 1000, byProvider, provider);
    if (!s.provider) return;
    const series = this.modelSeries(s.provider, s.model);
    for (let i = 0; i < TOKEN_KINDS.length; i++) {
      const n = s[TOKEN_KINDS[i]![1]];
      if (n > 0) series.token(i).value += n;
    }
    if (s.costUsd) series.cost().value += s.costUsd;
  }

  /**
   * The requests series of a connection and status class. Kept by provider and connection (the
   * config's few, and 'none'), so an answered request finds its series without making a key.
   */
  private requestSeries(provider: string, connection: string, status: number): Sample {
    let byConnection = this.requestsBy.get(provider);
    if (!byConnection) {
      byConnection = new Map();
      this.requestsBy.set(provider, byConnection);
    }
    let classes = byConnection.get(connection);
    if (!classes) {
      classes = [];
      byConnection.set(connection, classes);
    }
    const cls = Math.floor(status / 100);
    let series = classes[cls];
    if (!series) {
      const code = `${cls}xx`;
      series = this.requests.at(
        `${provider}\u0000${connection}\u0000${code}`,
        byStatus,
        provider,
        connection,
        code,
      );
      classes[cls] = series;
    }
    return series;
  }

  /** A model's token and cost series; past MAX_MODEL_SERIES models, those of `other`. */
  private modelSeries(provider: string, requested: string): ModelSeries {
    let models = this.modelsBy.get(provider);
    if (!models) {
      models = new Map();
      this.modelsBy.set(provider, models);
    }
    const known = models.get(requested);
    if (known) return known;
    // Every named model is in `models` by now, so one not found is new.
    let model = requested;
    if (this.named < MAX_MODEL_SERIES) this.named++;
    else model = OTHER_MODEL;
    const series = models.get(model) ?? new ModelSeries(this.tokens, this.cost, provider, model);
    // Only named series are kept by name: an invented model past the cap is looked up again.
    models.set(model, series);
    return series;
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
