import type { ComboOptions } from '../../../../shared/contract';
import type { Candidate } from '../resolve';
import type { SignalsView } from '../signals';

/** What a strategy may know of the request; the costly parts are computed on first use. */
export interface StrategyRequest {
  readonly combo: string;
  readonly options: Readonly<ComboOptions>;
  /** The gateway API key's name, or null without keys. */
  readonly client: string | null;
  /** Estimated input tokens of the prompt. */
  inputTokens(): number;
  /** `max_tokens` (or its equivalent) when the client set one. */
  maxOutputTokens(): number | null;
  /** A hash of the system prompt, the tools and the first message, or null without messages. */
  prefix(): string | null;
}

/** The order to try, and why, in words for the decision header and the request log. */
export interface Ordered {
  readonly order: Candidate[];
  readonly reason: string;
}

/** No candidate can take the request at all (context-optimized): a 400 with no upstream call. */
export interface Refused {
  readonly refuse: { code: string; message: string };
}

export type StrategyResult = Ordered | Refused;

export type Strategy = (
  candidates: readonly Candidate[],
  signals: SignalsView,
  request: StrategyRequest,
  rng: () => number,
) => StrategyResult;

/** A target and its connections, in the order the candidates named them. */
export interface Group {
  readonly label: string;
  readonly weight: number;
  readonly items: readonly Candidate[];
}

export function groups(candidates: readonly Candidate[]): Group[] {
  const byLabel = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const list = byLabel.get(c.target.label);
    if (list) list.push(c);
    else byLabel.set(c.target.label, [c]);
  }
  return [...byLabel].map(([label, items]) => ({
    label,
    weight: items[0]!.target.weight ?? 1,
    items,
  }));
}

export function flatten(ordered: readonly Group[]): Candidate[] {
  return ordered.flatMap((g) => g.items);
}

/** `first` ahead, the others in their configured order. */
export function ahead(all: readonly Group[], first: Group): Group[] {
  return [first, ...all.filter((g) => g !== first)];
}

/** Stable sort by `key` ascending; ties keep the configured order. */
export function sortBy<T>(items: readonly T[], key: (item: T) => number): T[] {
  return items
    .map((item, i) => ({ item, i, k: key(item) }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.item);
}

/** The configured order, with the reason a strategy could not do better. */
export function configured(candidates: readonly Candidate[], why: string): Ordered {
  return { order: [...candidates], reason: `${why}: configured order` };
}

/** A uniform draw from [0, n) with the injected random source. */
export function draw(rng: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(rng() * n));
}

/** Two different items drawn uniformly (power of two choices); `items` has at least two. */
export function drawTwo<T>(items: readonly T[], rng: () => number): [T, T] {
  const i = draw(rng, items.length);
  let j = draw(rng, items.length - 1);
  if (j >= i) j++;
  return [items[i]!, items[j]!];
}

export function shuffle<T>(items: readonly T[], rng: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = draw(rng, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
