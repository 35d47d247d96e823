// What every importer shares: reading the file (a syntax error names its line), turning another
// tool's names into ours, and collecting providers and combos that pass the config file's own
// checks. An entry that does not pass is skipped with its reason; the rest still imports.

import type {
  BreakwaterConfig,
  ComboConfig,
  ConnectionConfig,
  ProviderConfig,
} from '../../../shared/contract';
import { ENV_NAME_PATTERN } from '../../../shared/schema/connection';
import { ID_PATTERN } from '../../../shared/schema/values';
import {
  parseTargetRef,
  ValidationError,
  validateCombo,
  validateProvider,
} from '../config/validate';
import { jsonSyntaxOf } from '../json-syntax';

/** A file that cannot be imported at all: the line (when known) and why. */
export class ImportError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number | null = null,
  ) {
    super(line !== null ? `line ${line}: ${reason}` : reason);
    this.name = 'ImportError';
  }
}

export interface ImportDraft {
  config: BreakwaterConfig;
  /** Settings to apply, by key; only keys this version knows. */
  settings: Record<string, unknown>;
  /** Where each provider came from in the file, by provider id. */
  sources: Record<string, string>;
  /** What was imported besides the providers (the report lists the providers from `config`). */
  imported: string[];
  skipped: { item: string; reason: string }[];
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** How deep a file's lists and maps may nest; no importer reads anything below a few levels. */
export const MAX_NESTING = 64;

const tooDeep = () =>
  new ImportError(`nested more than ${MAX_NESTING} levels deep: not a config file`, 1);

/** Refuses text whose brackets nest deeper than MAX_NESTING, before a parser recurses into it. */
export function checkBrackets(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > MAX_NESTING) throw tooDeep();
    } else if (c === 93 || c === 125) depth--;
  }
}

/** Refuses a parsed value nested deeper than MAX_NESTING (YAML nests by indentation too). */
export function checkDepth(root: unknown): void {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_NESTING) throw tooDeep();
    for (const v of Object.values(value)) stack.push([v, depth + 1]);
  }
}

/** JSON.parse with the line of a syntax error; the reason never quotes the text (it may hold keys). */
export function parseJson(text: string): unknown {
  checkBrackets(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, line } = jsonSyntaxOf(text, err);
    throw new ImportError(`not valid JSON: ${reason}`, line);
  }
}

/** A value read from a file as a plain object, or null (a `null`, a number or a list is none). */
export function objectOr(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Our identifier for another tool's name: `My Provider!` → `my-provider`. */
export function toId(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 64);
  return ID_PATTERN.test(id) ? id : 'imported';
}

/**
 * A key as another tool writes it: a reference to a variable (`$VAR`, `${VAR}`,
 * `os.environ/VAR`) stays a reference; anything else is the secret itself.
 */
export function keyOf(raw: unknown): Pick<ConnectionConfig, 'apiKey' | 'apiKeyEnv'> {
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  const value = raw.trim();
  const ref = /^(?:\$\{([^}]+)\}|\$([A-Za-z_][A-Za-z0-9_]*)|os\.environ\/(.+))$/.exec(value);
  const name = ref ? (ref[1] ?? ref[2] ?? ref[3])! : null;
  if (name !== null && ENV_NAME_PATTERN.test(name)) return { apiKeyEnv: name };
  return { apiKey: value };
}

/** How a connection's key came in, for the report (never the key). */
export function describeKey(c: ConnectionConfig): string {
  if (c.apiKeyEnv) return `key from $${c.apiKeyEnv}`;
  if (c.apiKey) return 'key stored from the file';
  return 'no key';
}

export class DraftBuilder {
  private readonly providers = new Map<string, ProviderConfig>();
  private readonly sources = new Map<string, string>();
  private readonly combos: ComboConfig[] = [];
  private readonly comboLines: string[] = [];
  readonly skipped: { item: string; reason: string }[] = [];
  /** Settings by their Breakwater key (`timeouts.totalMs`, `modelLockout.enabled`, …). */
  readonly settings: Record<string, unknown> = {};

  skip(item: string, reason: string): void {
    this.skipped.push({ item, reason });
  }

  hasProvider(id: string): boolean {
    return this.providers.has(id);
  }

  provider(id: string): ProviderConfig | undefined {
    return this.providers.get(id);
  }

  /** The next suffix to try per base, so a file of many alike names is not quadratic. */
  private readonly nextSuffix = new Map<string, number>();

  /** An id not taken yet: `name`, else `name-2`, `name-3`, … */
  freeId(base: string): string {
    if (!this.providers.has(base)) return base;
    let n = this.nextSuffix.get(base) ?? 2;
    while (this.providers.has(`${base.slice(0, 60)}-${n}`)) n++;
    this.nextSuffix.set(base, n + 1);
    return `${base.slice(0, 60)}-${n}`;
  }

  /** Adds a provider if the config schema accepts it; else skips it with the schema's reason. */
  addProvider(p: ProviderConfig, from: string): boolean {
    try {
      validateProvider(p, `provider ${p.id}`);
    } catch (err) {
      this.skip(from, err instanceof ValidationError ? err.message : String(err));
      return false;
    }
    this.providers.set(p.id, p);
    this.sources.set(p.id, from);
    return true;
  }

  /** Adds a model to an imported provider (deployments of one provider arrive one by one). */
  addModel(providerId: string, model: string): void {
    const p = this.providers.get(providerId);
    if (p && !p.models.includes(model)) p.models.push(model);
  }

  /**
   * Adds a combo over the targets whose provider was imported (the others are skipped with
   * the reason); a combo left with no target is skipped as a whole.
   */
  addCombo(combo: ComboConfig, from: string): void {
    const targets = combo.targets.filter((t) => {
      const ref = parseTargetRef(typeof t === 'string' ? t : t.target);
      if (ref && this.providers.has(ref.provider)) return true;
      this.skip(
        `${from} target ${typeof t === 'string' ? t : t.target}`,
        'its provider was not imported',
      );
      return false;
    });
    if (targets.length === 0) {
      this.skip(from, 'no target left to route to');
      return;
    }
    try {
      const checked = validateCombo({ ...combo, targets }, `combo ${combo.name}`);
      this.combos.push(checked);
      this.comboLines.push(
        `combo ${checked.name} from ${from}: ${checked.strategy}, ${checked.targets.length} target(s)`,
      );
    } catch (err) {
      this.skip(from, err instanceof ValidationError ? err.message : String(err));
    }
  }

  build(): ImportDraft {
    // Provider models may have grown after the provider was added; check the final shape.
    for (const p of this.providers.values()) validateProvider(p, `provider ${p.id}`);
    return {
      config: {
        providers: [...this.providers.values()],
        combos: this.combos,
      },
      settings: this.settings,
      sources: Object.fromEntries(this.sources),
      imported: this.comboLines,
      skipped: this.skipped,
    };
  }
}
