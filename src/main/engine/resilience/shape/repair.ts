// Request-shape repairs (issue 17): which fix a refused request gets (decideShapeRepair, pure),
// and the fixes learnt so far per provider and model (ShapeRepairs), applied to every later
// request so it is sent right the first time, persisted in batches off the request path.
import type { EngineEvent, LearnedFixView } from '../../../../shared/contract';
import type { Logger } from '../../logger';
import type { LearnedFixRepo, LearnedFixRow } from '../../store';
import { DeferredFlush } from '../deferred-flush';
import { decideEffortFix } from './effort-clamp';
import { describeFix, type ErrorText, restoreFix, type ShapeFix } from './fix';
import { decideParameterFix } from './param-learning';
import { applyFixes } from './surgery';
import { toolLimitFix } from './tool-limit';

/** Which repairs are switched on (`shapeRepair.*`). */
export interface ShapeRepairSettings {
  parameterLearning: boolean;
  effortClamp: boolean;
  toolLimit: boolean;
  /** Opt-in: it changes what the model sees. */
  contextEditing: boolean;
}

/** Retries one attempt has made so far, per mechanism. */
export interface RepairCount {
  parameter: number;
  effort: number;
}

/** Retries per attempt at most: each must change the request, so these only bound odd cases. */
export const MAX_REPAIRS: Readonly<RepairCount> = { parameter: 3, effort: 2 };

/**
 * The fix for a 400 about the request's shape, or null (relay it unchanged): the effort clamp
 * reads its own wordings first, then parameter learning; a mechanism that is off or has used up
 * its retries for this attempt decides nothing.
 */
export function decideShapeRepair(
  error: ErrorText,
  body: Record<string, unknown>,
  count: Readonly<RepairCount>,
  settings: Readonly<ShapeRepairSettings>,
): ShapeFix | null {
  if (settings.effortClamp && count.effort < MAX_REPAIRS.effort) {
    const fix = decideEffortFix(error, body);
    if (fix) return fix;
  }
  if (settings.parameterLearning && count.parameter < MAX_REPAIRS.parameter) {
    return decideParameterFix(error, body);
  }
  return null;
}

/** A fix with where it came from. */
export interface LearntFix {
  fix: ShapeFix;
  cause: string;
  learnedAt: number;
}

export interface ShapeRepairDeps {
  repo: LearnedFixRepo;
  emit(e: EngineEvent): void;
  log: Logger;
  now(): number;
  flushIntervalMs?: number;
}

const SEP = '\0';
const keyOf = (provider: string, model: string) => `${provider}${SEP}${model}`;

/** A short, single-line excerpt of an upstream's error message for events, logs and the dashboard. */
export function causeExcerpt(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * The learnt fixes, per provider and model (the model as the upstream knows it). Reads are a map
 * lookup, so a request with nothing learnt for its model costs nothing more.
 */
export class ShapeRepairs {
  private readonly byModel = new Map<string, Map<string, LearntFix>>();
  private dirty = new Map<string, LearnedFixRow | null>();
  private readonly flusher: DeferredFlush;

  constructor(private readonly deps: ShapeRepairDeps) {
    this.flusher = new DeferredFlush(deps.flushIntervalMs ?? 250, () => this.flush());
    for (const row of deps.repo.load()) {
      const fix = restoreFix(row.fix);
      if (!fix) continue;
      this.entry(row.provider, row.model).set(row.param, {
        fix,
        cause: row.cause,
        learnedAt: row.learnedAt,
      });
    }
  }

  private entry(provider: string, model: string): Map<string, LearntFix> {
    const key = keyOf(provider, model);
    let m = this.byModel.get(key);
    if (!m) {
      m = new Map();
      this.byModel.set(key, m);
    }
    return m;
  }

  /**
   * The body with the fixes learnt for this provider and model that are on, and what they
   * changed; null when nothing is learnt for it (the common case: the body is sent as it is).
   */
  apply(
    provider: string,
    model: string,
    body: Record<string, unknown>,
    settings: Readonly<ShapeRepairSettings>,
  ): { body: Record<string, unknown>; notes: string[] } | null {
    const learned = this.byModel.get(keyOf(provider, model));
    if (!learned || learned.size === 0) return null;
    const on = [...learned.values()]
      .map((l) => l.fix)
      .filter((f) =>
        f.mechanism === 'effort'
          ? settings.effortClamp
          : f.mechanism === 'parameter' && settings.parameterLearning,
      );
    const done = applyFixes(body, on);
    return done.notes.length > 0 ? done : null;
  }

  /** The most tools this provider and model take, when one of its 400s said so. */
  toolLimit(provider: string, model: string): number | null {
    // Nothing learnt (the common case): no key is built for a lookup that cannot find anything.
    if (this.byModel.size === 0) return null;
    const fix = this.byModel.get(keyOf(provider, model))?.get('tools')?.fix;
    return fix?.kind === 'maxTools' ? fix.max : null;
  }

  /** Remembers a provider's stated tool limit at once: no retry can fix the request at hand. */
  rememberToolLimit(provider: string, model: string, max: number, cause: string): void {
    this.remember(provider, model, [{ fix: toolLimitFix(max), cause, learnedAt: this.deps.now() }]);
    this.deps.emit({ type: 'shape.tool_limit', at: this.deps.now(), provider, model, max, cause });
  }

  /** Whether anything is learnt for this provider and model. */
  knows(provider: string, model: string): boolean {
    if (this.byModel.size === 0) return false;
    return (this.byModel.get(keyOf(provider, model))?.size ?? 0) > 0;
  }

  /** Remembers fixes that got a request through (one per parameter; a newer one replaces). */
  remember(provider: string, model: string, fixes: readonly LearntFix[]): void {
    const entry = this.entry(provider, model);
    for (const l of fixes) {
      entry.set(l.fix.param, l);
      this.dirty.set(`${keyOf(provider, model)}${SEP}${l.fix.param}`, {
        provider,
        model,
        param: l.fix.param,
        fix: l.fix,
        cause: l.cause,
        learnedAt: l.learnedAt,
      });
      this.deps.log.info(
        `shape: ${provider}/${model}: learnt "${describeFix(l.fix)}" from "${l.cause}"`,
      );
    }
    this.flusher.schedule();
  }

  /** Reports one repair that was sent (an event; the dashboard's activity shows it). */
  repaired(
    e: Omit<
      Extract<EngineEvent, { type: 'shape.repaired' }>,
      'type' | 'at' | 'param' | 'mechanism'
    >,
    fix: Pick<ShapeFix, 'param' | 'mechanism'>,
  ): void {
    this.deps.emit({
      type: 'shape.repaired',
      at: this.deps.now(),
      ...e,
      param: fix.param,
      mechanism: fix.mechanism,
    });
  }

  failedOver(e: Omit<Extract<EngineEvent, { type: 'shape.failover' }>, 'type' | 'at'>): void {
    this.deps.emit({ type: 'shape.failover', at: this.deps.now(), ...e });
  }

  list(): LearnedFixView[] {
    const out: LearnedFixView[] = [];
    for (const [key, learned] of this.byModel) {
      const [provider = '', model = ''] = key.split(SEP);
      for (const [param, l] of learned) {
        out.push({
          provider,
          model,
          param,
          mechanism: l.fix.mechanism,
          fix: describeFix(l.fix),
          cause: l.cause,
          learnedAt: l.learnedAt,
        });
      }
    }
    return out.sort((a, b) => b.learnedAt - a.learnedAt);
  }

  /** Forgets the fixes of one model, of one provider, or all; returns how many. */
  clear(filter: { provider?: string; model?: string }, cause: string): number {
    let count = 0;
    for (const [key, learned] of this.byModel) {
      const [provider = '', model = ''] = key.split(SEP);
      if (filter.provider !== undefined && filter.provider !== provider) continue;
      if (filter.model !== undefined && filter.model !== model) continue;
      for (const param of learned.keys()) this.dirty.set(`${key}${SEP}${param}`, null);
      count += learned.size;
      this.byModel.delete(key);
    }
    if (count > 0) {
      this.flusher.schedule();
      this.deps.emit({
        type: 'shape.forgotten',
        at: this.deps.now(),
        provider: filter.provider ?? null,
        model: filter.model ?? null,
        count,
        cause,
      });
    }
    return count;
  }

  private flush(): void {
    if (this.dirty.size === 0) return;
    const changes = this.dirty;
    this.dirty = new Map();
    try {
      this.deps.repo.save(changes);
    } catch (err) {
      this.deps.log.warn(`shape: could not save learnt fixes: ${(err as Error).message}`);
    }
  }

  /** Writes what is pending (at shutdown). */
  close(): void {
    this.flusher.flushNow();
  }
}
