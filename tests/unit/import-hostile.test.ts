import { describe, expect, it } from 'vitest';
import { draftReport, IMPORTERS, ImportError } from '../../src/main/engine/import';
import { DraftBuilder } from '../../src/main/engine/import/draft';
import type { ImportTool } from '../../src/shared/contract';

// Files made to break the importers (issue 27 item 9): each is refused with an ImportError (the
// admin API's 400 import_refused) or imported in part with reasons, never a TypeError or a
// RangeError (a 500), and never quoting the text of a key.
function outcome(tool: ImportTool, text: string): ImportError | ReturnType<typeof draftReport> {
  try {
    return draftReport(tool, IMPORTERS[tool](text), true);
  } catch (err) {
    if (err instanceof ImportError) return err;
    throw err;
  }
}

const TOOLS = Object.keys(IMPORTERS) as ImportTool[];
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('hostile import files', () => {
  it('a YAML alias bomb is refused, not expanded', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    lines.push('model_list: *a11');
    const started = Date.now();
    const r = outcome('litellm', lines.join('\n'));
    expect(r).toBeInstanceOf(ImportError);
    expect((r as ImportError).message).toMatch(/alias/i);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    [
      'omniroute',
      '{"providerConnections": [null, 7, "x", {"provider": null}], "combos": [null, {"name": "c", "models": [null]}]}',
    ],
    [
      'omniroute',
      '{"providerConnections": [], "providerNodes": [null], "settings": null, "apiKeys": null}',
    ],
    [
      'claude-code-router',
      '{"Providers": [null, 3, {"name": null, "api_base_url": 5, "models": null, "transformer": null}], "Router": null}',
    ],
    [
      'cc-switch',
      '{"claude": {"providers": {"a": null, "b": 5, "c": {"settingsConfig": null, "meta": null}}}}',
    ],
    [
      'cc-switch',
      '{"claude": {"providers": []}, "codex": {"providers": {"x": {"settingsConfig": {"auth": null, "config": 5}}}}}',
    ],
    [
      'litellm',
      'model_list:\n  - null\n  - 5\n  - litellm_params: null\n  - litellm_params: {model: 5}\nrouter_settings: null\nlitellm_settings: 5\n',
    ],
    [
      'litellm',
      'model_list: [{model_name: x, litellm_params: {model: openai/x, api_base: 5, api_key: [1]}}]\nrouter_settings: {fallbacks: [null, 5, {x: null}]}\n',
    ],
  ] as [ImportTool, string][])(
    '%s: null and wrong-typed entries are skipped with a reason (%#)',
    (tool, text) => {
      const r = outcome(tool, text);
      if (r instanceof ImportError) expect(r.message).not.toMatch(/TypeError|Cannot read/);
      else expect(Array.isArray(r.skipped)).toBe(true);
    },
  );

  it.each(TOOLS)('%s: deep nesting is refused with a clear reason', (tool) => {
    for (const text of [
      `{"providerConnections": ${deep(5000)}, "Providers": ${deep(5000)}, "claude": {"providers": {"a": ${deep(5000)}}}, "model_list": ${deep(5000)}, "settings": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      deep(200_000),
    ]) {
      const r = outcome(tool, text);
      expect(r).toBeInstanceOf(ImportError);
      expect((r as ImportError).message).toMatch(/nested/);
    }
  });

  it.each(TOOLS.filter((t) => t !== 'litellm'))(
    '%s: a JSON syntax error names the line, not the key',
    (tool) => {
      const text = '{\n  "apiKey": sk-live-abcdef0123456789,\n  "x": 1\n}\n';
      const r = outcome(tool, text) as ImportError;
      expect(r).toBeInstanceOf(ImportError);
      expect(r.line).toBe(2);
      expect(r.message).not.toMatch(/sk-|abcdef/);
    },
  );

  it.each([
    'model_list:\n  - api_key: "sk-live-abcdef0123\n    x: [\n',
    ']sk-live-abcdef0123',
    'model_list: *sk-live-abcdef0123',
  ])('a YAML error names the line, not the key (%#)', (text) => {
    const r = outcome('litellm', text) as ImportError;
    expect(r).toBeInstanceOf(ImportError);
    expect(r.message).not.toMatch(/sk-|abcdef|"\]"/);
  });
});

describe('ids for many providers of one name', () => {
  it('freeId stays linear: 20000 providers named alike take well under a second', () => {
    const draft = new DraftBuilder();
    const started = Date.now();
    for (let i = 0; i < 20_000; i++) {
      const id = draft.freeId('p');
      draft.addProvider(
        {
          id,
          format: 'openai',
          baseUrl: 'http://h/v1',
          authClass: 'local',
          connections: [],
          models: [],
        },
        `p${i}`,
      );
    }
    expect(draft.hasProvider('p-20000')).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a 1 MB claude-code-router file of one provider name imports in well under two seconds', () => {
    const one =
      '{"name":"same","api_base_url":"http://127.0.0.1:1/v1/chat/completions","models":["m"]}';
    const providers: string[] = [];
    for (let size = 0; size < 1_000_000; size += one.length + 1) providers.push(one);
    const started = Date.now();
    const r = outcome('claude-code-router', `{"Providers":[${providers.join(',')}]}`);
    expect(r).not.toBeInstanceOf(ImportError);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
