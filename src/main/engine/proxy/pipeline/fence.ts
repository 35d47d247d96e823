import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Request stage: the exclusive-lease fence (RESILIENCE.md §10). A request that names a lease
 * with a stale or unknown generation is refused before anything is dispatched; one that passes
 * is managed, and once it is answered with a success the lease learns where it landed.
 */
export const fence: RequestStage = {
  name: 'fence',
  run(ctx: RequestContext, deps: PipelineDeps): Decision {
    const fenced = deps.leases?.fence(ctx.key, ctx.req.headers, ctx.now());
    if (fenced && !fenced.ok) return reply(fenced.error);
    ctx.lease = fenced?.managed ?? null;
    return CONTINUE;
  },
  after(ctx: RequestContext, deps: PipelineDeps): void {
    if (ctx.lease && ctx.served && ctx.status >= 200 && ctx.status < 300) {
      deps.leases?.served(ctx.lease, ctx.served.connection.id, ctx.now());
    }
  },
};
