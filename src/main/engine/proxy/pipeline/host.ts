import { checkHostAndOrigin } from '../../wire/guard';
import type { Door, DoorStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Front door: the `Host` must be the bound address (DNS rebinding) and an `Origin`, if any, this
 * machine's (a web page must not drive the gateway). First, before anything else is looked at.
 */
export const host: DoorStage = {
  name: 'host',
  run(door: Door, deps: PipelineDeps): Decision {
    const problem = checkHostAndOrigin(door.req.headers, { host: deps.host });
    if (!problem) return CONTINUE;
    return reply({
      status: 403,
      kind: 'permission',
      code: hostRefusalCode(problem),
      message: problem,
    });
  },
};

/** The error code of a host-check refusal: the Host or the Origin. */
export function hostRefusalCode(problem: string): 'forbidden_host' | 'forbidden_origin' {
  return /^(missing )?Host/.test(problem) ? 'forbidden_host' : 'forbidden_origin';
}
