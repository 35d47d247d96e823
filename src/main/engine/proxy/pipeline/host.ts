import { checkHostAndOrigin } from '../../wire/guard';
import type { Door, DoorStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/** The last Host header and bound host that passed the check with no Origin. */
const passed: { host: string | undefined; bound: string | undefined } = {
  host: undefined,
  bound: undefined,
};

/**
 * Front door: the `Host` must be the bound address (DNS rebinding) and an `Origin`, if any, this
 * machine's (a web page must not drive the gateway). First, before anything else is looked at.
 */
export const host: DoorStage = {
  name: 'host',
  run(door: Door, deps: PipelineDeps): Decision {
    const headers = door.req.headers;
    const bound = deps.host;
    // The check reads nothing but these three values: a client sends the same Host with every
    // request, so the last pair let through without an Origin is let through again unread.
    if (headers.origin === undefined && headers.host === passed.host && bound === passed.bound) {
      return CONTINUE;
    }
    const problem = checkHostAndOrigin(headers, { host: bound });
    if (!problem) {
      if (headers.origin === undefined) {
        passed.host = headers.host;
        passed.bound = bound;
      }
      return CONTINUE;
    }
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
