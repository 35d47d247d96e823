import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit } from './admit';
import type { AttemptStage } from './attempt';
import { background } from './background';
import { body } from './body';
import { budget } from './budget';
import { cacheWatch } from './cache-watch';
import type { DoorStage, RequestStage } from './context';
import { countTokens } from './count-tokens';
import { dashboard } from './dashboard';
import type { PipelineDeps } from './deps';
import { dispatch } from './dispatch';
import { endpoint } from './endpoint';
import { exclude } from './exclude';
import { fence } from './fence';
import { hold } from './hold';
import { host } from './host';
import { identify } from './identify';
import { models } from './list-models';
import { orchestrate } from './orchestrate';
import { parse } from './parse';
import { pause } from './pause';
import { plan } from './plan';
import { record } from './record';
import { type ReplayInput, replayRequest } from './replay';
import { reserve } from './reserve';
import { route } from './route';
import { runDoor } from './run';
import { contextWindow } from './shape-failover';
import { strategy } from './strategy';
import { toolLimit } from './tool-limit';
import { translate } from './translate';
import { webSearch } from './web-search';

export type { CaptureMode, StoredCapture } from './capture-held';
export type { PipelineDeps } from './deps';
export { type ReplayInput, ReplayRefusedError } from './replay';

// The request path, as a chain of stages. Each answers `continue`, `skip` (this candidate) or
// `reply` (an error that ends the request), or answers itself. The order rule: a stage runs
// after every stage whose result it reads, and a check that costs less or trusts less comes
// first: the front door before the body is read, cheap refusals before routing, the resilience
// state before capacity is taken, capacity before the call; the upstream call is last. Outcomes
// are learnt in reverse order. A new mechanism is a new file and a line below (docs/architecture.md).

/** Before anything about the request is trusted: refusals here are not logged. */
const FRONT_DOOR: readonly DoorStage[] = [
  host, //       Host is the bound address, Origin this machine's
  dashboard, //  /ui paths answer themselves
  identify, //   gateway API key, or loopback only
  models, //     GET /v1/models answers itself
  endpoint, //   a known endpoint, POST, JSON
  body, //       read whole, up to gateway.maxBodyBytes
  pause, //      503 while the operator has paused the proxy
];

/** Before each upstream attempt, per candidate; the first that skips passes it over. */
const ATTEMPT: readonly AttemptStage[] = [
  exclude, //    breaker open, provider or connection cooling, model locked out
  translate, //  the request in the candidate's API, or skip it
  toolLimit, //  more tools than the target said it takes: skip it
  contextWindow, // after "prompt too long": skip a target whose window is not larger
  hold, //       maxConcurrent permit and request-queue slot (may wait)
  admit, //      the breaker admits the call (half-open probe); learns the outcome
  // then the upstream call (call.ts), last, and the relay of its answer (relay.ts)
];

/** Once the body is in: one log row each, whatever happens. */
const REQUEST: readonly RequestStage[] = [
  record, //     first, so that its row is written last
  parse, //      a JSON object with a model
  cacheWatch, // a session's prompt digested; once answered, its cache reads judged
  background, // Responses `background: true` served synchronously, with a warning
  fence, //      exclusive-lease generation; a managed success moves the lease
  budget, //     the key's budgets: 429 budget_exceeded before any routing or upstream call
  route, //      model → targets → candidates
  reserve, //    the request's estimated tokens and cost held against the key's budgets
  countTokens, // a token estimate where no target counts tokens
  plan, //       leased connections taken out or preferred
  strategy, //   the combo's strategy orders what is left, and says why
  orchestrate(ATTEMPT), // fusion, pipeline, context-relay: internal calls, then the final one
  webSearch(ATTEMPT), // a search tool the target cannot run: the gateway's search loop answers
  dispatch(ATTEMPT), // candidates in order, failover, cooldown wait, the answer
];

/** A request to a proxy path (`/v1/*`, and every path that is not `/api`). */
export function handleProxyRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: PipelineDeps,
): Promise<void> {
  return runDoor(req, res, url, deps, FRONT_DOOR, REQUEST);
}

/** A captured client request sent again through the request stages (`POST /api/logs/{id}/replay`). */
export function replayProxyRequest(input: ReplayInput, deps: PipelineDeps) {
  return replayRequest(input, deps, REQUEST);
}
