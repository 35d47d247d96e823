import { anthropicModelList, listModels, openAiModelList } from '../models';
import type { Door, DoorStage } from './context';
import { ANSWERED, CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';

const MODELS_PATH = /^(\/v1)?\/models\/?$/;

/**
 * Front door: `GET /v1/models` lists every name a client may put in `model`, in the Anthropic
 * shape for callers that send `anthropic-version`, else in OpenAI's.
 */
export const models: DoorStage = {
  name: 'models',
  run(door: Door, deps: PipelineDeps): Decision {
    const { req, res } = door;
    if (req.method !== 'GET' || !MODELS_PATH.test(door.url.pathname)) return CONTINUE;
    const entries = listModels(deps.catalog());
    const body = JSON.stringify(
      req.headers['anthropic-version'] !== undefined
        ? anthropicModelList(entries, new Date(deps.startedAt).toISOString())
        : openAiModelList(entries, Math.floor(deps.startedAt / 1000)),
    );
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return ANSWERED;
  },
};
