// `/api/resilience/learned-fixes`: the request-shape fixes learnt from providers' 400s (issue 17),
// listed and cleared (all, one provider's, or one model's).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LearnedFixView } from '../../../shared/contract';
import type { ShapeRepairs } from '../resilience/shape';
import { sendJson } from '../wire/json-answer';
import { AdminError } from './operations';

const PATH = /^\/api\/resilience\/learned-fixes$/;

function filterOf(query: URLSearchParams): { provider?: string; model?: string } {
  const provider = query.get('provider');
  const model = query.get('model');
  if (model !== null && provider === null) {
    throw new AdminError(400, 'invalid_field', 'model needs provider as well', 'provider');
  }
  return { ...(provider ? { provider } : {}), ...(model ? { model } : {}) };
}

function matches(f: LearnedFixView, filter: { provider?: string; model?: string }): boolean {
  return (
    (filter.provider === undefined || f.provider === filter.provider) &&
    (filter.model === undefined || f.model === filter.model)
  );
}

function need(repairs: ShapeRepairs | undefined): ShapeRepairs {
  if (!repairs) throw new AdminError(404, 'not_found', 'request-shape repairs are not running');
  return repairs;
}

/** Clears learnt fixes (the route's and the desktop's action): how many went. */
export function clearLearnedFixes(
  repairs: ShapeRepairs | undefined,
  query: URLSearchParams,
): { cleared: number } {
  const filter = filterOf(query);
  return { cleared: need(repairs).clear(filter, 'cleared by an operator') };
}

/** The two routes, for the admin API's route table. */
export function learnedFixRoutes(repairs: ShapeRepairs | undefined) {
  return [
    {
      method: 'GET',
      pattern: PATH,
      handler: (_q: IncomingMessage, r: ServerResponse, _p: string[], url: URL) => {
        const filter = filterOf(url.searchParams);
        sendJson(
          r,
          200,
          need(repairs)
            .list()
            .filter((f) => matches(f, filter)),
        );
      },
    },
    {
      method: 'DELETE',
      pattern: PATH,
      handler: (_q: IncomingMessage, r: ServerResponse, _p: string[], url: URL) => {
        sendJson(r, 200, clearLearnedFixes(repairs, url.searchParams));
      },
    },
  ];
}
