import type {
  BreakerView,
  ComboConfig,
  ConnectionConfig,
  ConnectionTestResult,
  ConnectionView,
  EngineEvent,
  LockoutView,
  ProviderView,
  RequestLogDetail,
  RequestLogEntry,
  RuleConfig,
  RuleTestResult,
  SettingView,
} from '../../../shared/contract';
import { checkRuleUses, validateRules } from '../../../shared/schema/rules';
import { object } from '../../../shared/schema/values';
import type { Catalog } from '../config/catalog';
import {
  checkSubscriptionProvider,
  targetRefOf,
  ValidationError,
  validateCombo,
  validateConnection,
  validateProvider,
} from '../config/validate';
import type { ResilienceManager } from '../resilience/manager';
import { RESILIENCE_PREFIXES } from '../settings/resilience-settings';
import type { Settings } from '../settings/settings';
import { claudeCodeRules } from '../setup/claude-code-rules';
import type { RecentQuery, Store } from '../store';
import { connectionRecord, providerRecord, secretsForAnotherUrl } from '../store/config-records';
import { saveRules } from '../store/rules';
import type { ConnectionHealth } from '../store/state-records';
import { type ConnectionTestOptions, testConnection } from './connection-test';
import { catalogTargets, testRules } from './rules';

/** The setting naming the combo the model "default" routes to. */
const ACTIVE_COMBO = 'routing.activeCombo';

export class NotFoundError extends Error {
  constructor(what: string) {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/**
 * Every admin operation, independent of transport: the HTTP admin API and the desktop IPC
 * handlers both call these. Inputs are validated here; every change reloads the catalog and
 * emits one `config.changed` event.
 */
export class AdminService {
  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
    private readonly catalog: () => Catalog,
    private readonly reload: () => void,
    private readonly emit: (event: EngineEvent) => void,
    private readonly now: () => number,
    private readonly resilience: ResilienceManager,
  ) {}

  private changed(what: 'providers' | 'connections' | 'combos' | 'settings' | 'rules'): void {
    if (what !== 'settings') this.reload();
    this.emit({ type: 'config.changed', at: this.now(), what });
  }

  listProviders(): ProviderView[] {
    const catalog = this.catalog();
    return [...catalog.providers.values()].map((p) => catalog.providerView(p));
  }

  getProvider(id: string): ProviderView {
    const p = this.catalog().providers.get(id);
    if (!p) throw new NotFoundError(`provider "${id}"`);
    return this.catalog().providerView(p);
  }

  /**
   * Creates or replaces a provider. When `connections` is given it is the provider's complete
   * list (missing ones are removed, a connection without a new secret keeps its stored one);
   * when omitted the existing connections stay.
   */
  saveProvider(input: unknown): ProviderView {
    const provider = validateProvider(input, 'provider');
    const existing = this.store.providers.get(provider.id);
    const orphaned = secretsForAnotherUrl(provider, existing, (id) =>
      this.store.connections.get(id),
    );
    if (orphaned.length > 0)
      throw new ConflictError(
        `provider "${provider.id}" moves to another URL: give connection(s) ${orphaned.join(', ')} their key again (a stored key is only sent to the URL it was stored for)`,
      );
    const db = this.store.db;
    db.transaction(() => {
      this.store.providers.upsert(
        providerRecord(
          provider,
          existing?.position ?? this.store.providers.list().length,
          existing,
        ),
      );
      if (provider.connections) {
        const keep = new Set(provider.connections.map((c) => c.id));
        for (const c of this.store.connections.list(provider.id)) {
          if (!keep.has(c.id)) this.store.connections.remove(c.id);
        }
        provider.connections.forEach((c, i) => {
          this.upsertConnection(provider.id, c, i);
        });
      }
    })();
    this.changed('providers');
    return this.getProvider(provider.id);
  }

  deleteProvider(id: string): void {
    const connections = this.store.connections.list(id).map((c) => c.id);
    if (!this.store.providers.remove(id)) throw new NotFoundError(`provider "${id}"`);
    this.resilience.forgetProvider(id, connections);
    this.changed('providers');
  }

  private upsertConnection(
    provider: string,
    conn: ConnectionConfig,
    fallbackPosition: number,
  ): void {
    const existing = this.store.connections.get(conn.id);
    if (existing && existing.provider !== provider) {
      throw new ConflictError(
        `connection "${conn.id}" already belongs to provider "${existing.provider}"`,
      );
    }
    const record = connectionRecord(
      provider,
      conn,
      existing,
      existing?.position ?? fallbackPosition,
    );
    this.store.connections.upsert(record);
    // A new credential ends a terminal state (banned, expired, credits) and any cooldown.
    const secretChanged =
      existing !== undefined &&
      (record.apiKey !== existing.apiKey || record.apiKeyEnv !== existing.apiKeyEnv);
    if (secretChanged) {
      const c = this.catalog().connections.get(conn.id);
      if (c) this.resilience.clearConnection(c, this.now());
    }
  }

  saveConnection(provider: string, input: unknown): ConnectionView {
    const owner = this.store.providers.get(provider);
    if (!owner) throw new NotFoundError(`provider "${provider}"`);
    const conn = validateConnection(input, 'connection');
    checkSubscriptionProvider(owner.format, conn, 'connection');
    this.upsertConnection(provider, conn, this.store.connections.list(provider).length);
    this.changed('connections');
    const saved = this.catalog().connections.get(conn.id)!;
    return this.catalog().connectionView(saved);
  }

  deleteConnection(id: string): void {
    if (!this.store.connections.remove(id)) throw new NotFoundError(`connection "${id}"`);
    this.resilience.forgetConnection(id);
    this.changed('connections');
  }

  /**
   * Tests a connection's credential with one models-list call (connection-test.ts). A
   * diagnostic: the outcome never reaches the breaker, cooldowns, lockouts or the request log.
   */
  testConnection(id: string, opts: ConnectionTestOptions = {}): Promise<ConnectionTestResult> {
    const catalog = this.catalog();
    const connection = catalog.connections.get(id);
    if (!connection) throw new NotFoundError(`connection "${id}"`);
    const provider = catalog.providers.get(connection.provider);
    if (!provider) throw new NotFoundError(`provider "${connection.provider}"`);
    return testConnection(
      { provider, connection, secret: catalog.secretOf(connection), scrub: catalog.secrets() },
      opts,
    );
  }

  listConnections(): ConnectionView[] {
    const catalog = this.catalog();
    return [...catalog.connections.values()].map((c) => catalog.connectionView(c));
  }

  listCombos(): ComboConfig[] {
    return [...this.catalog().combos.values()].map(({ name, strategy, targets, options }) => ({
      name,
      strategy,
      targets,
      ...(options ? { options } : {}),
    }));
  }

  saveCombo(input: unknown): ComboConfig {
    const combo = validateCombo(input, 'combo');
    const catalog = this.catalog();
    combo.targets.forEach((t, i) => {
      const ref = targetRefOf(t);
      const provider = ref.slice(0, ref.indexOf('/'));
      if (!catalog.providers.has(provider)) {
        throw new ValidationError(`combo.targets[${i}]`, `provider "${provider}" does not exist`);
      }
    });
    if (catalog.providers.has(combo.name)) {
      throw new ValidationError(
        'combo.name',
        `"${combo.name}" is a provider id; pick another combo name`,
      );
    }
    this.store.combos.upsert(combo);
    this.changed('combos');
    return combo;
  }

  listRules(): { rules: RuleConfig[] } {
    return { rules: [...this.catalog().rules] };
  }

  /** Replaces every rule at once; the next request is routed by them. */
  saveRules(input: unknown): { rules: RuleConfig[] } {
    const body = object(input, '', ['rules']);
    const rules = validateRules(body.rules, 'rules');
    checkRuleUses(rules, catalogTargets(this.catalog()), 'rules');
    saveRules(this.store, rules);
    this.changed('rules');
    return { rules };
  }

  /** The Claude Code rule set for the providers as they are now; changes nothing. */
  claudeCodeRules(): { rules: RuleConfig[] } {
    const catalog = this.catalog();
    return {
      rules: claudeCodeRules([...catalog.providers.values()], (p, m) => catalog.modelSpec(p, m)),
    };
  }

  /** Which rule a request would take, and why each earlier one did not; changes nothing. */
  testRules(input: unknown): RuleTestResult {
    return testRules(this.catalog(), input);
  }

  deleteCombo(name: string): void {
    if (!this.store.combos.remove(name)) throw new NotFoundError(`combo "${name}"`);
    // "default" would otherwise route to a combo that is gone.
    if (this.settings.string(ACTIVE_COMBO) === name) this.settings.update({ [ACTIVE_COMBO]: null });
    this.changed('combos');
  }

  getSettings(): SettingView[] {
    return this.settings.view();
  }

  updateSettings(values: unknown): SettingView[] {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      throw new ValidationError('body', 'must be a JSON object of setting keys to values');
    }
    const active = (values as Record<string, unknown>)[ACTIVE_COMBO];
    if (typeof active === 'string' && active.trim() && !this.catalog().combos.has(active.trim())) {
      throw new ValidationError(ACTIVE_COMBO, `combo "${active.trim()}" does not exist`);
    }
    this.settings.update(values as Record<string, unknown>);
    this.changed('settings');
    return this.settings.view();
  }

  // ------------------------------------------------------------ resilience (RESILIENCE.md)

  /** Every provider's breaker: state, failure count, retry-after, transition history. */
  monitoringHealth(): { at: number; breakers: BreakerView[] } {
    const now = this.now();
    return { at: now, breakers: this.resilience.breakerViews(now) };
  }

  /** Resets one provider's breaker (`{provider}`) or all (`{}`). */
  resetBreakers(input: unknown): { reset: string[] } {
    const body = (input ?? {}) as { provider?: unknown };
    if (typeof body !== 'object' || Array.isArray(body))
      throw new ValidationError('body', 'must be a JSON object');
    if (body.provider !== undefined) {
      if (typeof body.provider !== 'string')
        throw new ValidationError('provider', 'must be a provider id');
      if (!this.catalog().providers.has(body.provider))
        throw new NotFoundError(`provider "${body.provider}"`);
    }
    const reset = this.resilience.resetBreakers(body.provider as string | undefined, this.now());
    return { reset };
  }

  listLockouts(): LockoutView[] {
    return this.resilience.lockoutViews(this.now());
  }

  /** Re-enables one model: `{provider, connection, model}`. */
  clearLockout(input: unknown): { cleared: LockoutView[] } {
    const body = input as Record<string, unknown> | null;
    for (const field of ['provider', 'connection', 'model'] as const) {
      if (typeof body?.[field] !== 'string' || body[field] === '') {
        throw new ValidationError(field, 'is required (a non-empty string)');
      }
    }
    const b = body as { provider: string; connection: string; model: string };
    const cleared = this.resilience.clearLockout(b.provider, b.connection, b.model, this.now());
    if (cleared.length === 0)
      throw new NotFoundError(`lockout of ${b.provider}/${b.connection}/${b.model}`);
    return { cleared };
  }

  getResilienceSettings(): SettingView[] {
    return this.settings.view(RESILIENCE_PREFIXES);
  }

  updateResilienceSettings(values: unknown): SettingView[] {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      throw new ValidationError('body', 'must be a JSON object of setting keys to values');
    }
    for (const key of Object.keys(values)) {
      if (!RESILIENCE_PREFIXES.some((p) => key.startsWith(p))) {
        throw new ValidationError(key, 'is not a resilience setting (use PATCH /api/settings)');
      }
    }
    const active = (values as Record<string, unknown>)[ACTIVE_COMBO];
    if (typeof active === 'string' && active.trim() && !this.catalog().combos.has(active.trim())) {
      throw new ValidationError(ACTIVE_COMBO, `combo "${active.trim()}" does not exist`);
    }
    this.settings.update(values as Record<string, unknown>);
    this.changed('settings');
    return this.getResilienceSettings();
  }

  /** Cooldown and terminal state of every connection. */
  connectionStates(): Array<{ id: string; provider: string } & ConnectionHealth> {
    const now = this.now();
    return [...this.catalog().connections.values()].map((c) => ({
      id: c.id,
      provider: c.provider,
      ...this.resilience.connectionHealth(c, now),
    }));
  }

  /** Clears one connection's cooldown or terminal state: `{connection}`. */
  clearConnectionState(input: unknown): { cleared: string } {
    const id = (input as { connection?: unknown } | null)?.connection;
    if (typeof id !== 'string' || id === '')
      throw new ValidationError('connection', 'is required (a connection id)');
    const conn = this.catalog().connections.get(id);
    if (!conn) throw new NotFoundError(`connection "${id}"`);
    this.resilience.clearConnection(conn, this.now());
    return { cleared: id };
  }

  logs(query: RecentQuery): RequestLogEntry[] {
    return this.store.requestLog.recent(query);
  }

  /** One row with what was captured of its call (`attempts: []` when nothing was). */
  logDetail(id: number): RequestLogDetail {
    const row = this.store.requestLog.detail(id);
    if (!row) throw new NotFoundError(`request log row ${id}`);
    const capture = row.capture as Partial<Pick<RequestLogDetail, 'attempts' | 'client'>> | null;
    return { ...row.entry, attempts: capture?.attempts ?? [], client: capture?.client ?? null };
  }
}
