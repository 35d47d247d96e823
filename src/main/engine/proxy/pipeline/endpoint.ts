import { isJsonContentType } from '../../wire/guard';
import type { Door, DoorStage } from './context';
import { CONTINUE, type Decision, reply } from './decision';

/** Front door: the path is one of the proxy's endpoints, it is POSTed, and the body is JSON. */
export const endpoint: DoorStage = {
  name: 'endpoint',
  run(door: Door): Decision {
    const { req, url } = door;
    if (!door.endpoint) {
      return reply({
        status: 404,
        kind: 'not_found',
        code: 'unknown_endpoint',
        message: `${req.method} ${url.pathname} is not an endpoint of this gateway (it serves POST /v1/chat/completions, /v1/responses, /v1/messages, /v1/messages/count_tokens, /v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens, and GET /v1/models and /v1beta/models)`,
      });
    }
    if (req.method !== 'POST') {
      door.res.setHeader('allow', 'POST');
      return reply({
        status: 405,
        kind: 'invalid_request',
        code: 'method_not_allowed',
        message: `${url.pathname} accepts POST only`,
      });
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return reply({
        status: 415,
        kind: 'invalid_request',
        code: 'unsupported_media_type',
        message: `Content-Type must be application/json (got ${req.headers['content-type'] ?? 'none'})`,
      });
    }
    return CONTINUE;
  },
};
