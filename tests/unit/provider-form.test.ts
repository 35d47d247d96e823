import { describe, expect, it } from 'vitest';
import {
  EMPTY_PROVIDER,
  providerDraft,
  providerPayload,
} from '../../src/renderer/src/pages/providers/provider-model';
import type { ProviderView } from '../../src/shared/contract';
import { GPT5, GPT5_MINI } from '../support/model-specs';

const view: ProviderView = {
  id: 'oa',
  format: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  authClass: 'api_key',
  models: ['gpt-5', 'gpt-5-mini', 'o3'],
  modelSpecs: [GPT5, GPT5_MINI],
  timeouts: {},
  enabled: true,
  quotaFamilies: {},
  connections: [],
};

describe('provider form: draft to payload', () => {
  it('saves an unedited draft with every configured model entry as it was', () => {
    expect(providerPayload(providerDraft(view), {})).toEqual({
      id: 'oa',
      format: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      authClass: 'api_key',
      models: [GPT5, GPT5_MINI, 'o3'],
    });
  });

  it('keeps a kept model’s entry, sends a new id plain and drops a removed one', () => {
    const draft = { ...providerDraft(view), models: 'o4-mini  gpt-5,o3, gpt-5' };
    expect(providerPayload(draft, {}).models).toEqual(['o4-mini', GPT5, 'o3']);
  });

  it('reads a view without modelSpecs (an older gateway) as plain ids', () => {
    const { modelSpecs: _none, ...older } = view;
    expect(providerPayload(providerDraft(older), {}).models).toEqual(['gpt-5', 'gpt-5-mini', 'o3']);
  });

  it('trims id and base URL, and sends quota families only when set or being cleared', () => {
    const draft = { ...EMPTY_PROVIDER, id: ' x ', baseUrl: ' http://h/v1 ', models: 'm' };
    expect(providerPayload(draft, {})).toEqual({
      id: 'x',
      format: 'openai',
      baseUrl: 'http://h/v1',
      authClass: 'api_key',
      models: ['m'],
    });
    expect(providerPayload(draft, { g: ['m*'] }).quotaFamilies).toEqual({ g: ['m*'] });
    const had = providerDraft({ ...view, quotaFamilies: { g: ['gpt-5*'] } });
    expect(had.quotaFamilies).toBe('g: gpt-5*');
    expect(providerPayload(had, {}).quotaFamilies).toEqual({});
  });
});
