import type {
  AuthClass,
  ComboConfig,
  ConnectionOptions,
  ConnectionView,
  ProviderFormat,
  ProviderOptions,
  ProviderView,
  UpstreamTimeouts,
} from '../../../shared/contract';

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

  constructor(
    providers: CatalogProvider[],
    combos: ComboConfig[],
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.providers = new Map(providers.map((p) => [p.id, p]));
    this.combos = new Map(combos.map((c) => [c.name, c]));
    this.connections = new Map(providers.flatMap((p) => p.connections.map((c) => [c.id, c])));
    const owners = new Map<string, string[]>();
    for (const p of providers) {
      if (!p.enabled) continue;
      for (const m of p.models) owners.set(m, [...(owners.get(m) ?? []), p.id]);
    }
    this.modelOwners = owners;
  }

  /** The credential to send upstream, or null when none is configured (local providers). */
  secretOf(conn: CatalogConnection): string | null {
    if (conn.apiKey) return conn.apiKey;
    if (conn.apiKeyEnv) return this.env[conn.apiKeyEnv] || null;
    return null;
  }

  /** Every secret the catalog knows, so error texts and logs can be scrubbed of them. */
  secrets(): string[] {
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
      timeouts: { ...p.timeouts },
      enabled: p.enabled,
      quotaFamilies: p.options?.quotaFamilies ?? {},
      connections: p.connections.map((c) => this.connectionView(c)),
    };
  }
}
