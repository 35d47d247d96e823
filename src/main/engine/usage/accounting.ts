// What one answered request adds to the usage roll-up: its tokens, normalised across formats,
// and its cost from the model price table. Pure: the caller gives the price lookup.

import type { UsageTotals } from '../../../shared/contract';
import type { UsageDims } from '../store';
import { promptTokens, reportsUsage, type Usage } from './usage';

/** USD per million tokens (`providers[].models[].price`). */
export interface ModelPriceLike {
  input: number;
  output: number;
  /** Cache reads; the input price when unset. */
  cacheRead?: number;
  /** Cache writes; 1.25 × the input price when unset (Anthropic's 5-minute cache). */
  cacheWrite?: number;
}

/** The price of `model` served by `provider`, or null when the table has none. */
export type PriceOf = (provider: string, model: string) => ModelPriceLike | null;

const CACHE_WRITE_FACTOR = 1.25;

/** Token counts of a request; `inputTokens` includes cache reads and writes. */
export type TokenCounts = Omit<UsageTotals, 'requests' | 'costUsd'>;

export interface UsageSample extends UsageDims, TokenCounts {
  at: number;
  error: boolean;
  /** Null when the model has no price. */
  costUsd: number | null;
  /** The provider reported nothing: tokens were estimated from the bytes. */
  estimated: boolean;
}

export interface SampleInput {
  at: number;
  dims: UsageDims;
  usage: Usage;
  status: number;
  bytesIn: number;
  /** The answer's bytes for an estimate: of a Chat stream, those of its content. */
  bytesOut: number;
  /** `count_tokens` counts tokens without spending any. */
  countOnly: boolean;
}

/** Roughly four bytes a token: only for answers whose provider reported no usage at all. */
const BYTES_PER_TOKEN = 4;

export function costUsd(t: TokenCounts, price: ModelPriceLike): number {
  const uncached = Math.max(0, t.inputTokens - t.cacheReadTokens - t.cacheWriteTokens);
  const usd =
    uncached * price.input +
    t.cacheReadTokens * (price.cacheRead ?? price.input) +
    t.cacheWriteTokens * (price.cacheWrite ?? price.input * CACHE_WRITE_FACTOR) +
    t.outputTokens * price.output;
  return usd / 1_000_000;
}

/**
 * One request's sample, built as one object of a fixed shape (it is made for every request; the
 * roll-up, the metrics and the budget read it and let it go).
 */
export function sampleOf(input: SampleInput, priceOf: PriceOf): UsageSample {
  const u = input.usage;
  const d = input.dims;
  const ok = input.status >= 200 && input.status < 300;
  const estimated = ok && !reportsUsage(u) && !input.countOnly;
  const counted = !input.countOnly && !estimated;
  const sample: UsageSample = {
    at: input.at,
    provider: d.provider,
    connection: d.connection,
    model: d.model,
    combo: d.combo,
    keyName: d.keyName,
    session: d.session,
    inputTokens: estimated
      ? Math.ceil(input.bytesIn / BYTES_PER_TOKEN)
      : counted
        ? (promptTokens(u) ?? 0)
        : 0,
    outputTokens: estimated
      ? Math.ceil(input.bytesOut / BYTES_PER_TOKEN)
      : counted
        ? (u.outputTokens ?? 0)
        : 0,
    cacheReadTokens: counted ? (u.cachedTokens ?? 0) : 0,
    cacheWriteTokens: counted ? (u.cacheWriteTokens ?? 0) : 0,
    reasoningTokens: counted ? (u.reasoningTokens ?? 0) : 0,
    error: input.status >= 400,
    costUsd: null,
    estimated,
  };
  const price = d.provider ? priceOf(d.provider, d.model) : null;
  if (price) sample.costUsd = costUsd(sample, price);
  return sample;
}

/** Tokens that count against a `tokensPerDay` limit: prompt and answer. */
export function billedTokens(s: TokenCounts): number {
  return s.inputTokens + s.outputTokens;
}
