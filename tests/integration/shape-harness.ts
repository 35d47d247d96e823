// What the issue-17 integration tests share: one gateway per file with its events collected, and
// the providers' error bodies as the fake upstream scripts them.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { BreakwaterConfig, EngineEvent } from '../../src/shared/contract';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';

export interface Harness {
  gw: TestGateway;
  /** Events since the test began (a restart needs `listen()` again). */
  events: EngineEvent[];
  listen(): void;
}

/**
 * Starts a gateway for the file; before each test the fakes, resilience state, events and learnt
 * fixes are cleared, then `before` runs (settings of the test file).
 */
export function shapeHarness(
  before?: (gw: TestGateway) => void,
  config?: (primary: FakeUpstream, backup: FakeUpstream) => BreakwaterConfig,
): Harness {
  const h: Harness = {
    gw: undefined as unknown as TestGateway,
    events: [],
    listen: () => h.gw.engine.onEvent((e) => h.events.push(e)),
  };
  beforeAll(async () => {
    h.gw = await startGateway(config ? { config } : {});
    h.listen();
  });
  afterAll(() => h.gw.close());
  beforeEach(async () => {
    h.gw.primary.reset();
    h.gw.backup.reset();
    h.gw.resetResilience();
    await h.gw.admin('/api/resilience/learned-fixes', { method: 'DELETE' });
    h.events.length = 0;
    before?.(h.gw);
  });
  return h;
}

export const openaiError = (message: string, param: string | null, code: string): FakeStep => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

export const anthropicError = (message: string): FakeStep => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});
