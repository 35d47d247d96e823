import { isLoopbackAddress, presentedKey } from '../../wire/guard';
import { googleKey } from '../endpoints';
import type { Door, DoorStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Front door: who is calling. With gateway API keys live (imported from the config or created
 * through the admin API; a revoked one is refused from the next request on), the client presents
 * one of them (`Authorization: Bearer`, `x-api-key`, or for Gemini clients `x-goog-api-key` or
 * `?key=`); with none, only clients on this machine are served.
 */
export const identify: DoorStage = {
  name: 'identify',
  run(door: Door, deps: PipelineDeps): Decision {
    if (deps.keys.size > 0) {
      door.key = deps.keys.match(
        presentedKey(door.req.headers) ?? googleKey(door.req.headers, door.url),
      );
      if (door.key) return CONTINUE;
      return reply({
        status: 401,
        kind: 'authentication',
        code: 'invalid_api_key',
        message:
          'this gateway requires one of its API keys (Authorization: Bearer <key>, x-api-key or x-goog-api-key)',
      });
    }
    if (isLoopbackAddress(door.req.socket.remoteAddress)) return CONTINUE;
    return reply({
      status: 403,
      kind: 'permission',
      code: 'loopback_only',
      message: 'no gateway API keys are configured, so only clients on this machine are served',
    });
  },
};
