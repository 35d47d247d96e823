// First-run operations of the admin API and the desktop actions: the provider catalog with the
// model table's context windows and prices, detection of keys and local servers, and imports
// from other gateways (a dry run reports; otherwise the draft is saved through the service).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  DetectedProvider,
  ImportReport,
  ModelSpec,
  ProviderConfig,
  ProviderPreset,
  RuleConfig,
} from '../../../shared/contract';
import { Catalog } from '../config/catalog';
import { loadPresets } from '../config/presets';
import {
  draftReport,
  IMPORTERS,
  type ImportDraft,
  ImportError,
  isImportTool,
  separateFromStored,
} from '../import';
import { loadModelDefaults } from '../routing/model-defaults';
import { claudeCodeRules } from '../setup/claude-code-rules';
import { detectProviders } from '../setup/detect';
import { sendJson } from '../wire/json-answer';
import { AdminError, type AdminOperations } from './operations';

let catalog: ProviderPreset[] | undefined;

/** `GET /api/presets`: the catalog, each model with what the model table knows of it. */
export function presetList(): { presets: ProviderPreset[] } {
  if (!catalog) {
    const defaults = loadModelDefaults();
    catalog = loadPresets().map((p) => ({
      ...p,
      models: p.models.map((id): ModelSpec => ({ id, ...defaults.get(id) })),
    }));
  }
  return { presets: catalog };
}

/** `GET /api/setup/detect`: what is ready to add. Adds nothing. */
export function detect(ops: AdminOperations): Promise<DetectedProvider[]> {
  return detectProviders({
    presets: loadPresets(),
    env: ops.env ?? {},
    ...(ops.localServerUrls ? { localUrls: ops.localServerUrls } : {}),
  });
}

/** `POST /api/import` `{ tool, text, dryRun }`. */
export function importConfig(ops: AdminOperations, input: unknown): ImportReport {
  const o = (input ?? {}) as { tool?: unknown; text?: unknown; dryRun?: unknown };
  if (!isImportTool(o.tool))
    throw new AdminError(
      400,
      'invalid_field',
      `tool must be one of ${Object.keys(IMPORTERS).join(', ')}`,
      'tool',
    );
  if (typeof o.text !== 'string' || o.text.trim() === '')
    throw new AdminError(400, 'invalid_field', 'text must be the file to import', 'text');
  const dryRun = o.dryRun === true;
  let draft: ImportDraft;
  try {
    draft = IMPORTERS[o.tool](o.text);
  } catch (err) {
    if (err instanceof ImportError)
      throw new AdminError(400, 'import_refused', err.message, 'text');
    throw err;
  }
  const s = ops.service;
  const stored = s.listProviders();
  const moved = separateFromStored(draft, stored, new Set(s.listConnections().map((c) => c.id)));
  const existing = new Set(stored.map((p) => p.id));
  const replaced = (draft.config.providers ?? [])
    .filter((p) => existing.has(p.id))
    .map(
      (p) =>
        `provider ${p.id} replaces the one of that id (its connections become the imported ones)`,
    );
  if (!dryRun) {
    for (const p of draft.config.providers ?? []) s.saveProvider(p);
    for (const c of draft.config.combos ?? []) s.saveCombo(c);
    if (Object.keys(draft.settings).length > 0) s.updateSettings(draft.settings);
  }
  return draftReport(o.tool, draft, dryRun, [...moved, ...replaced]);
}

/** The first-run routes, for the admin API's route table. */
export function setupRoutes(
  ops: AdminOperations,
  body: (req: IncomingMessage) => Promise<unknown>,
) {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/presets$/,
      handler: (_q: IncomingMessage, r: ServerResponse) => sendJson(r, 200, presetList()),
    },
    {
      method: 'GET',
      pattern: /^\/api\/setup\/detect$/,
      handler: async (_q: IncomingMessage, r: ServerResponse) =>
        sendJson(r, 200, await detect(ops)),
    },
    {
      method: 'POST',
      pattern: /^\/api\/import$/,
      handler: async (q: IncomingMessage, r: ServerResponse) =>
        sendJson(r, 200, importConfig(ops, await body(q))),
    },
  ];
}

/** The Claude Code rule set for these providers, with what the model table knows of each model. */
export function claudeCodeRuleSet(providers: readonly ProviderConfig[]): RuleConfig[] {
  const table = new Catalog([], [], {}, loadModelDefaults());
  return claudeCodeRules(providers, (p, m) => table.modelSpec(p, m));
}
