// The provider form's draft and the payload it saves, apart from React so they can be tested.
import type {
  AuthClass,
  ModelEntry,
  ModelSpec,
  ProviderFormat,
  ProviderInput,
  ProviderView,
} from '../../../../shared/contract';
import { formatQuotaFamilies } from '../../components/provider-fields';

export interface ProviderDraft {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  models: string;
  /**
   * The models configured with a context window or price. The form edits ids only; a kept id is
   * saved with its entry, since a save replaces the provider's whole model list.
   */
  modelSpecs: ModelSpec[];
  /** `family: pattern, pattern` per line. */
  quotaFamilies: string;
  /** Whether the provider had quota families, so clearing the text sends `{}`. */
  hadFamilies: boolean;
}

export const EMPTY_PROVIDER: ProviderDraft = {
  id: '',
  format: 'openai',
  baseUrl: '',
  authClass: 'api_key',
  models: '',
  modelSpecs: [],
  quotaFamilies: '',
  hadFamilies: false,
};

export function providerDraft(p: ProviderView): ProviderDraft {
  return {
    id: p.id,
    format: p.format,
    baseUrl: p.baseUrl,
    authClass: p.authClass,
    models: p.models.join(', '),
    modelSpecs: p.modelSpecs ?? [],
    quotaFamilies: formatQuotaFamilies(p.quotaFamilies),
    hadFamilies: Object.keys(p.quotaFamilies).length > 0,
  };
}

/**
 * What saving `draft` sends, with `families` parsed from its quota families text: a kept model
 * keeps its configured entry, a new one goes as a plain id, a removed one is dropped.
 */
export function providerPayload(
  draft: ProviderDraft,
  families: Record<string, string[]>,
): ProviderInput {
  const specs = new Map(draft.modelSpecs.map((s) => [s.id, s]));
  // An id typed twice is sent once: the engine refuses an entry given twice.
  const ids = new Set(draft.models.split(/[\s,]+/).filter(Boolean));
  const models: ModelEntry[] = [...ids].map((id) => specs.get(id) ?? id);
  const sendFamilies = Object.keys(families).length > 0 || draft.hadFamilies;
  return {
    id: draft.id.trim(),
    format: draft.format,
    baseUrl: draft.baseUrl.trim(),
    authClass: draft.authClass,
    models,
    ...(sendFamilies ? { quotaFamilies: families } : {}),
  };
}
