import type { CaptureMode, PipelineDeps } from '../proxy/pipeline/index';
import { pipelineSettings, shapeSettings } from '../proxy/pipeline/settings';
import { FairShare } from '../routing/fair-share';
import { RoutingSignals } from '../routing/signals';
import { createUiHandler } from '../ui/static';
import { resolveBackend, searchTimes, WebSearchService } from '../websearch/service';
import type { EngineParts } from './parts';

export interface PipelineInputs {
  maxBodyBytes: number;
  random(): number;
  /** Built renderer to serve as the browser dashboard at `/ui`. */
  uiDir?: string;
}

/**
 * What the request pipeline reads. Built once: the request path only reads it. Settings it needs
 * are derived values, recomputed after a settings update rather than on every request.
 */
export function buildPipeline(parts: EngineParts, inputs: PipelineInputs): PipelineDeps {
  const { clock, events, settings, status, usage } = parts;
  return {
    // Read per request: the dashboard may move the gateway to another host.
    get host() {
      return parts.listening().host;
    },
    keys: parts.keyRing,
    priceOf: (provider, model) => parts.catalog().modelSpec(provider, model).price ?? null,
    budgets: usage,
    maxBodyBytes: inputs.maxBodyBytes,
    startedAt: status.startedAt,
    paused: () => status.paused,
    uploadAborted: () => usage.metrics.clientAbort(),
    ...(inputs.uiDir ? { ui: createUiHandler(inputs.uiDir) } : {}),
    ...pipelineSettings(settings),
    shape: { repairs: parts.shapeRepairs, ...shapeSettings(settings) },
    catalog: parts.catalog,
    pools: parts.pools,
    clock,
    log: parts.log,
    inFlight: status.inFlight,
    routing: new RoutingSignals(inputs.random, parts.quotas, parts.maps),
    share: new FairShare(
      () => clock.now(),
      settings.derived((s) => s.number('concurrencyLimit.waitTimeoutMs')),
    ),
    resilience: parts.resilience,
    flow: parts.flow,
    quotaWaits: parts.quotaWaits,
    subscription: parts.subscription,
    events: ({ code, candidate, message }) =>
      events.emit({
        type: 'queue.rejected',
        at: clock.now(),
        provider: candidate.target.provider.id,
        connection: candidate.connection.id,
        code,
        cause: message,
      }),
    webSearch: new WebSearchService(
      () => resolveBackend(parts.store.webSearch.get(), parts.env),
      searchTimes(parts.env).timeoutMs,
      searchTimes(parts.env).keepAliveMs,
    ),
    webSearchUnavailable: (backend, cause) =>
      events.emit({ type: 'websearch.unavailable', at: clock.now(), backend, cause }),
    continued: ({ candidate, cut, continuation }) =>
      events.emit({
        type: 'stream.continued',
        at: clock.now(),
        provider: candidate.target.provider.id,
        connection: candidate.connection.id,
        model: candidate.target.model,
        cutTarget: cut.target,
        reason: cut.reason,
        chars: cut.chars,
        continuation,
      }),
    record: (entry, sample, capture) => {
      usage.record(entry, sample);
      parts.sessions.note(sample, entry);
      status.count(entry.status);
      const id = parts.store.requestLog.append(entry, capture);
      // Nobody listening (no dashboard open) is the common case: skip building the event.
      if (events.size > 0) {
        events.emit({ type: 'request.completed', at: clock.now(), entry: { ...entry, id } });
      }
      return id;
    },
    capture: settings.derived((s) => ({
      mode: s.string('requestLog.captureBodies') as CaptureMode,
      maxBytes: s.number('requestLog.captureMaxBytes'),
    })),
    leases: parts.leases,
    cacheWatch: cacheWatchDeps(parts),
    cacheWaitMs: settings.derived((s) => s.number('sessionAffinity.cacheWaitMs')),
  };
}

function cacheWatchDeps(parts: EngineParts): NonNullable<PipelineDeps['cacheWatch']> {
  const { clock, events, settings } = parts;
  const percent = settings.derived((s) => s.number('cacheWatch.lossPercent'));
  return {
    watch: parts.cacheWatch,
    enabled: () => percent() > 0,
    lost: (loss) => events.emit({ type: 'cache.lost', at: clock.now(), ...loss }),
  };
}
