import type {
  AuthClass,
  ComboConfig,
  ConnectionOptions,
  ConnectionView,
  ModelEntry,
  ModelSpec,
  ProviderFormat,
  ProviderOptions,
  ProviderView,
  RuleConfig,
  UpstreamTimeouts,
} from '../../../shared/contract';
import { RecentValues } from '../bounded-map';

export interface CatalogConnection {
  id: string;
  provider: string;
  apiKey: string | null;
  apiKeyEnv: string | null;
  maxConcurrent: number | null;
  enabled: boolean;
  options?: ConnectionOptions;
}

export interface CatalogProvider {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  models: string[];
  timeouts: Partial<UpstreamTimeouts>;
  enabled: boolean;
  options?: ProviderOptions;
  connections: CatalogConnection[];
  /** The models configured with a context window or price, by id. */
  modelSpecs?: ReadonlyMap<string, ModelSpec>;
}

/** A provider as the store gives it: its models may carry a context window and price. */
export interface CatalogProviderInput extends Omit<CatalogProvider, 'models' | 'modelSpecs'> {
  models: readonly ModelEntry[];
}

/** Context window, price and capabilities of well-known models, by model id (see routing/model-defaults). */
export type ModelDefaults = ReadonlyMap<string, Omit<ModelSpec, 'id'>>;

const NO_DEFAULTS: ModelDefaults = new Map();

/** Specs kept per provider: its listed models, and names clients ask for as `provider/model`. */
const KEPT_SPECS = 256;

/** `openrouter/claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`: the defaults' key. */
function baseModelId(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).replace(/-(\d{8}|latest)$/, '');
}

function catalogProvider(p: CatalogProviderInput): CatalogProvider {
  const specs = new Map<string, ModelSpec>();
  for (const m of p.models) if (typeof m !== 'string') specs.set(m.id, m);
  return {
    ...p,
    models: p.models.map((m) => (typeof m === 'string' ? m : m.id)),
    modelSpecs: specs,
  };
}

/**
 * Immutable in-memory view of providers, connections and combos, rebuilt from the store after
 * every admin change, so routing on the hot path never touches SQLite.
 */
export class Catalog {
  readonly providers: ReadonlyMap<string, CatalogProvider>;
  readonly combos: ReadonlyMap<string, ComboConfig>;
  readonly connections: ReadonlyMap<string, CatalogConnection>;
  /** Bare model name → ids of the enabled providers that list it. */
  readonly modelOwners: ReadonlyMap<string, string[]>;
  /**
   * The secrets, listed once when every connection's key is in the config: then they cannot
   * change for the life of the catalog, and every relayed answer asks for them. A key read from
   * the environment is read again each time, as `secretOf` does.
   */
  private readonly inlineSecrets: readonly string[] | null;
  /**
   * Model specs worked out once per catalog (routing and pricing ask for one on every request),
   * frozen since every caller shares it; per provider, by model.
   */
  private readonly specs = new Map<string, RecentValues<string, ModelSpec>>();

  constructor(
    inputs: CatalogProviderInput[],
    combos: ComboConfig[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly modelDefaults: ModelDefaults = NO_DEFAULTS,
    /** Routing rules in order (routing/rules.ts compiles them once per catalog). */
    readonly rules: readonly RuleConfig[] = [],
  ) {
    const providers = inputs.map(catalogProvider);
    this.providers = new Map(providers.map((p) => [p.id, p]));
    this.combos = new Map(combos.map((c) => [c.name, c]));
    this.connections = new Map(providers.flatMap((p) => p.connections.map((c) => [c.id, c])));
    const owners = new Map<string, string[]>();
    for (const p of providers) {
      if (!p.enabled) continue;
      for (const m of p.models) owners.set(m, [...(owners.get(m) ?? []), p.id]);
    }
    this.modelOwners = owners;
    const fromEnv = [...this.connections.values()].some((c) => !c.apiKey && c.apiKeyEnv);
    this.inlineSecrets = fromEnv ? null : Object.freeze(this.currentSecrets());
  }

  /**
   * What is known of a provider's model: its configured entry over the defaults for the model
   * id (`vendor/model`, `model-20250929` and `model-latest` also match `model`'s). Fields nobody
   * knows stay unset.
   */
  modelSpec(provider: string, model: string): ModelSpec {
    if (!this.providers.has(provider)) return this.specOf(provider, model);
    let byModel = this.specs.get(provider);
    if (!byModel) {
      byModel = new RecentValues(KEPT_SPECS, (m) => Object.freeze(this.specOf(provider, m)));
      this.specs.set(provider, byModel);
    }
    return byModel.get(model);
  }

  private specOf(provider: string, model: string): ModelSpec {
    const configured = this.providers.get(provider)?.modelSpecs?.get(model);
    const defaults = this.modelDefaults.get(model) ?? this.modelDefaults.get(baseModelId(model));
    const contextWindow = configured?.contextWindow ?? defaults?.contextWindow;
    const price = configured?.price ?? defaults?.price;
    const capabilities = configured?.capabilities ?? defaults?.capabilities;
    return {
      id: model,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(price !== undefined ? { price } : {}),
      ...(capabilities !== undefined ? { capabilities } : {}),
    };
  }

  /** The credential to send upstream, or null when none is configured (local providers). */
  secretOf(conn: CatalogConnection): string | null {
    if (conn.apiKey) return conn.apiKey;
    if (conn.apiKeyEnv) return this.env[conn.apiKeyEnv] || null;
    return null;
  }

  /** Every secret the catalog knows, so error texts and logs can be scrubbed of them. */
  secrets(): readonly string[] {
    return this.inlineSecrets ?? this.currentSecrets();
  }

  private currentSecrets(): string[] {
    const out: string[] = [];
    for (const c of this.connections.values()) {
      const s = this.secretOf(c);
      if (s) out.push(s);
    }
    return out;
  }

  connectionView(conn: CatalogConnection): ConnectionView {
    return {
      id: conn.id,
      provider: conn.provider,
      apiKeyEnv: conn.apiKeyEnv,
      hasSecret: this.secretOf(conn) !== null,
      maxConcurrent: conn.maxConcurrent,
      enabled: conn.enabled,
      disableCooling: conn.options?.disableCooling === true,
      rateLimit: conn.options?.rateLimit ?? null,
      rateLimitOverrides: conn.options?.rateLimitOverrides ?? null,
      lowPriorityMode: conn.options?.lowPriorityMode === true,
      autoLimitReset: conn.options?.autoLimitReset === true,
      organizationUUID: conn.options?.organizationUUID ?? null,
    };
  }

  providerView(p: CatalogProvider): ProviderView {
    return {
      id: p.id,
      format: p.format,
      baseUrl: p.baseUrl,
      authClass: p.authClass,
      models: [...p.models],
      modelSpecs: [...(p.modelSpecs?.values() ?? [])],
      timeouts: { ...p.timeouts },
      enabled: p.enabled,
      quotaFamilies: p.options?.quotaFamilies ?? {},
      ...(p.options?.promptCache ? { promptCache: { ...p.options.promptCache } } : {}),
      connections: p.connections.map((c) => this.connectionView(c)),
    };
  }
}
