// Imports from other gateways: file text in, a draft (providers, connections, combos, settings,
// what was skipped and why) out. Pure: nothing here reads a file or touches the store.

import type { ImportReport, ImportTool } from '../../../shared/contract';
import { importCcSwitch } from './cc-switch';
import { importClaudeCodeRouter } from './claude-code-router';
import { describeKey, type ImportDraft, ImportError } from './draft';
import { importLitellm } from './litellm';
import { importOmniroute } from './omniroute';

export { type ImportDraft, ImportError } from './draft';
export { separateFromStored } from './stored-clashes';

/**
 * A file of a shape the importer did not foresee (a value of another type somewhere) is refused
 * as the file's fault, a 400, never a crash; the message names the error's kind, not its text.
 */
function guarded(importer: (text: string) => ImportDraft): (text: string) => ImportDraft {
  return (text) => {
    try {
      return importer(text);
    } catch (err) {
      if (err instanceof ImportError || !(err instanceof TypeError || err instanceof RangeError))
        throw err;
      throw new ImportError(
        `a value of a type or depth this importer does not expect (${err.name}); nothing was imported`,
      );
    }
  };
}

export const IMPORTERS: Readonly<Record<ImportTool, (text: string) => ImportDraft>> = {
  omniroute: guarded(importOmniroute),
  'claude-code-router': guarded(importClaudeCodeRouter),
  litellm: guarded(importLitellm),
  'cc-switch': guarded(importCcSwitch),
};

export function isImportTool(value: unknown): value is ImportTool {
  return typeof value === 'string' && Object.hasOwn(IMPORTERS, value);
}

/** The report of a draft: ids, names and reasons only, never a secret. */
export function draftReport(
  tool: ImportTool,
  draft: ImportDraft,
  dryRun: boolean,
  notes: string[] = [],
): ImportReport {
  const providers = draft.config.providers ?? [];
  return {
    tool,
    dryRun,
    providers: providers.map((p) => p.id),
    connections: providers.flatMap((p) => p.connections.map((c) => c.id)),
    combos: (draft.config.combos ?? []).map((c) => c.name),
    imported: [
      ...providers.map((p) => {
        const conns = p.connections.map((c) => `${c.id} (${describeKey(c)})`).join(', ');
        return `provider ${p.id} from ${draft.sources[p.id]}: ${p.format} ${p.baseUrl}, ${p.models.length} model(s), connection ${conns || 'none'}`;
      }),
      ...draft.imported,
      ...Object.keys(draft.settings).map((k) => `setting ${k}`),
      ...notes,
    ],
    skipped: draft.skipped,
  };
}
