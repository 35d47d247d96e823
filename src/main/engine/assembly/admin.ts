import type { KeyOperations } from '../admin/keys';
import type { AdminOperations } from '../admin/operations';
import { AdminService } from '../admin/service';
import { webSearchAdmin } from '../admin/web-search';
import type { ListenInfo } from '../proxy/binding';
import type { PipelineDeps } from '../proxy/pipeline/index';
import type { EngineParts } from './parts';
import { replayLogged } from './replay';

/** The admin operations both transports share (HTTP admin API, desktop IPC), with the key ring. */
export interface AdminParts extends AdminOperations {
  readonly accounts: KeyOperations;
}

export interface AdminInputs {
  /** Rebuilds the catalog after the admin API changed providers, connections or combos. */
  reload(): void;
  /** Moves the gateway to another address while it serves. */
  move(input: unknown): Promise<ListenInfo>;
  localServerUrls?: Readonly<Record<string, string>>;
  /** The request pipeline (built after the admin operations): replays go through it. */
  pipeline(): PipelineDeps;
}

/** Sessions the Usage page shows their cache turn by turn. */
const SESSION_CACHE_VIEWS = 50;

export function buildAdmin(parts: EngineParts, inputs: AdminInputs): AdminParts {
  const { clock, status, leases } = parts;
  const service = new AdminService(
    parts.store,
    parts.settings,
    parts.catalog,
    inputs.reload,
    (e) => parts.events.emit(e),
    () => clock.now(),
    parts.resilience,
  );
  return {
    service,
    setPaused: (next) => {
      status.setPaused(next);
      return { paused: status.paused };
    },
    setAddress: (input) => inputs.move(input),
    releaseLease: (connection) => leases.releaseConnection(connection, clock.now()),
    learnedFixes: parts.shapeRepairs,
    log: parts.log,
    env: parts.env,
    listening: () => parts.listening(),
    ...(inputs.localServerUrls ? { localServerUrls: inputs.localServerUrls } : {}),
    replay: (id, target) => replayLogged(parts, inputs.pipeline, id, target),
    session: (id) => parts.sessions.summary(id, (c) => parts.quotas.get(c)),
    sessionCache: () => parts.cacheWatch.views(clock.now(), SESSION_CACHE_VIEWS),
    accounts: { keys: parts.keyRing, usage: parts.usage, now: () => clock.now() },
    webSearch: webSearchAdmin(
      parts.store.webSearch,
      parts.env,
      (e) => parts.events.emit(e),
      () => clock.now(),
    ),
  };
}
