import { withoutGeminiVersion } from '../endpoints';
import { anthropicModelList, geminiModelList, listModels, openAiModelList } from '../models';
import type { Door, DoorStage } from './context';
import { ANSWERED, CONTINUE, type Decision } from './decision';
import type { PipelineDeps } from './deps';

const MODELS_PATH = /^(\/v1){0,2}\/models\/?$/;

/**
 * Front door: `GET /v1/models` (also `/models`, `/v1/v1/models`) lists every name a client may
 * put in `model`, in the Anthropic shape for callers that send `anthropic-version`, else in
 * OpenAI's; `GET /v1beta/models` lists them in the Gemini API's.
 */
export const models: DoorStage = {
  name: 'models',
  run(door: Door, deps: PipelineDeps): Decision {
    const { req, res } = door;
    if (req.method !== 'GET') return CONTINUE;
    const gemini = door.url.pathname.startsWith('/v1beta/');
    const path = gemini ? withoutGeminiVersion(door.url.pathname) : door.url.pathname;
    if (!MODELS_PATH.test(path ?? '')) return CONTINUE;
    const entries = listModels(deps.catalog(), deps.activeCombo?.() ?? null);
    const body = JSON.stringify(
      gemini
        ? geminiModelList(entries)
        : req.headers['anthropic-version'] !== undefined
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
