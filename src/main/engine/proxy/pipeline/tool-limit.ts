import { toolCount } from '../../resilience/shape';
import type { AttemptStage } from './attempt';
import { bodyOf } from './context';
import { CONTINUE, skip } from './decision';
import { tooManyTools } from './shape-failover';

/**
 * Attempt stage (issue 17): a target whose provider said it takes at most N tools is skipped by
 * a request with more, before any capacity is taken or upstream call made. When every target
 * was skipped so, the dispatch answers with the 400 made here, naming the limit.
 */
export const toolLimit: AttemptStage = {
  name: 'tool-limit',
  enter(a) {
    const shape = a.deps.shape;
    const { target } = a.candidate;
    const max = shape?.repairs.toolLimit(target.provider.id, target.model) ?? null;
    if (max === null || !shape?.settings().toolLimit) return CONTINUE;
    const count = toolCount(bodyOf(a.ctx));
    if (count <= max) return CONTINUE;
    a.dispatch.tooManyTools = tooManyTools(
      count,
      target.label,
      max,
      'as it said in an earlier answer',
    );
    return skip('tool_limit', null, `${count} tools, at most ${max} taken`);
  },
};
