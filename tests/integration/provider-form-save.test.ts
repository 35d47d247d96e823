// Editing a provider from the dashboard's form, through both bridges (the browser's HTTP admin
// client and the desktop's in-process actions): the models configured with a context window or
// price keep them across the save.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  providerDraft,
  providerPayload,
} from '../../src/renderer/src/pages/providers/provider-model';
import { type AdminActions, createAdminClient } from '../../src/shared/admin-client';
import type { ProviderView } from '../../src/shared/contract';
import { startGateway, type TestGateway } from '../support/gateway';
import { GPT5, GPT5_MINI } from '../support/model-specs';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

async function view(bridge: AdminActions, id: string): Promise<ProviderView> {
  const list = await bridge.listProviders();
  if (!list.ok) throw new Error(list.error);
  const p = list.data.find((v) => v.id === id);
  if (!p) throw new Error(`no provider ${id}`);
  return p;
}

describe.each([
  [
    'browser (HTTP admin API)',
    () => createAdminClient({ baseUrl: gw.url, token: () => gw.engine.adminToken }),
  ],
  ['desktop (in-process actions)', () => gw.engine.actions],
])('saving the provider form through the %s bridge', (name, bridgeOf) => {
  it('keeps the context window and price of every model still listed', async () => {
    const bridge = bridgeOf();
    const id = `priced-${name.split(' ')[0]}`;
    const made = await bridge.saveProvider({
      id,
      format: 'openai',
      baseUrl: `${gw.primary.url}/v1`,
      authClass: 'api_key',
      models: [GPT5, GPT5_MINI, 'o3'],
    });
    expect(made.ok).toBe(true);

    // Only the base URL changes: every entry stays as configured.
    const draft = { ...providerDraft(await view(bridge, id)), baseUrl: `${gw.backup.url}/v1` };
    expect((await bridge.saveProvider(providerPayload(draft, {}))).ok).toBe(true);
    const same = await view(bridge, id);
    expect(same.baseUrl).toBe(`${gw.backup.url}/v1`);
    expect(same.models).toEqual(['gpt-5', 'gpt-5-mini', 'o3']);
    expect(same.modelSpecs).toEqual([GPT5, GPT5_MINI]);

    // A model removed loses its entry, a new one comes in plain, the kept one keeps its own.
    const edited = { ...providerDraft(same), models: 'gpt-5, o3, o4-mini' };
    expect((await bridge.saveProvider(providerPayload(edited, {}))).ok).toBe(true);
    const after = await view(bridge, id);
    expect(after.models).toEqual(['gpt-5', 'o3', 'o4-mini']);
    expect(after.modelSpecs).toEqual([GPT5]);
  });
});
