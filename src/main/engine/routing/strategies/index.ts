import type { ComboStrategy } from '../../../../shared/contract';
import { auto } from './auto';
import { cacheOptimized } from './cache-optimized';
import { contextOptimized } from './context-optimized';
import { costOptimized } from './cost-optimized';
import { fillFirst } from './fill-first';
import { headroom } from './headroom';
import { leastUsed } from './least-used';
import { lkgp } from './lkgp';
import { p2c } from './p2c';
import { priority } from './priority';
import { quotaShare } from './quota-share';
import { random } from './random';
import { resetAware } from './reset-aware';
import { resetWindow } from './reset-window';
import { roundRobin } from './round-robin';
import { strictRandom } from './strict-random';
import type { Strategy } from './types';
import { weighted } from './weighted';

export type { Ordered, Refused, Strategy, StrategyRequest, StrategyResult } from './types';

/**
 * The ordering strategies. context-relay, fusion and pipeline call upstream more than once per
 * request: the orchestrate stage (proxy/pipeline/orchestrate.ts) runs them, not an order.
 */
export const STRATEGY: Readonly<Partial<Record<ComboStrategy, Strategy>>> = {
  priority,
  weighted,
  'round-robin': roundRobin,
  'fill-first': fillFirst,
  p2c,
  random,
  'strict-random': strictRandom,
  'least-used': leastUsed,
  'cost-optimized': costOptimized,
  'reset-aware': resetAware,
  'reset-window': resetWindow,
  headroom,
  lkgp,
  'context-optimized': contextOptimized,
  'cache-optimized': cacheOptimized,
  auto,
  'quota-share': quotaShare,
};
