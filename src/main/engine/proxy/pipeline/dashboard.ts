import type { Door, DoorStage } from './context';
import { ANSWERED, CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Front door: the browser dashboard (`/ui` of the headless host) answers its own paths. It
 * comes before the gateway key, since the page itself asks for the admin token; a proxy
 * endpoint is never a dashboard path, so those skip the hook and its await.
 */
export const dashboard: DoorStage = {
  name: 'dashboard',
  run(door: Door, deps: PipelineDeps): Decision | Promise<Decision> {
    if (!deps.ui || door.endpoint) return CONTINUE;
    return deps.ui(door.req, door.res, door.url).then((served) => (served ? ANSWERED : CONTINUE));
  },
};
