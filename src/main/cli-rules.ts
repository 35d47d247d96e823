// `breakwater rules test FILE.json`: which rule a request would take at a running instance, and
// why each rule before it did not; and the Claude Code rule set `breakwater init` offers.

import { readFileSync } from 'node:fs';
import type { Interface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { BreakwaterConfig, ClientFormat, RuleTestResult } from '../shared/contract';
import { CLIENT_FORMATS } from '../shared/schema/rules';
import { CliError, client, ok } from './cli-accounts';
import { claudeCodeRuleSet } from './engine/index';

export const RULES_USAGE = `  breakwater rules test FILE.json [--client FORMAT] [--key NAME] [--url URL] [--data-dir DIR]`;

export function ruleTestText(r: RuleTestResult): string {
  const lines = r.missed.map((m) => `  ${m.name}: no, ${m.why}`);
  lines.push(
    r.matched
      ? `→ rule ${r.matched.name} → ${r.matched.use}`
      : `→ no rule matches; model ${r.seen.model} is resolved as it is`,
  );
  const s = r.seen;
  lines.push(
    `  (seen: model ${s.model}, client ${s.client}, key ${s.key ?? 'none'}, ~${s.inputTokens} tokens in, thinking ${s.thinking}, images ${s.images}, web search ${s.webSearch}, tools ${s.tools})`,
  );
  return `${lines.join('\n')}\n`;
}

export async function rules(args: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      client: { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      'data-dir': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [sub, file] = positionals;
  if (sub !== 'test' || !file || positionals.length > 2) {
    throw new CliError(`usage:\n${RULES_USAGE}`);
  }
  const format = values.client ?? 'anthropic';
  if (!CLIENT_FORMATS.includes(format as ClientFormat)) {
    throw new CliError(`--client must be one of ${CLIENT_FORMATS.join(', ')}`);
  }
  let request: unknown;
  try {
    request = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  const api = client(values);
  const result = await ok(
    api.testRules({
      request,
      client: format as ClientFormat,
      ...(values.key ? { key: values.key } : {}),
    }),
  );
  out(ruleTestText(result));
}

/**
 * Shows the Claude Code rule set for the config `init` is about to write, and adds it when the
 * user says yes (or `--claude-code` was given); nothing is offered when no model is known.
 */
export async function offerClaudeCodeRules(
  config: BreakwaterConfig,
  ask: Interface | null,
  flags: { 'claude-code': boolean },
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<BreakwaterConfig> {
  const take = flags['claude-code'];
  const proposed = claudeCodeRuleSet(config.providers ?? []);
  if (proposed.length === 0) return config;
  out(`Routing rules for Claude Code:\n${JSON.stringify(proposed, null, 2)}\n`);
  const yes = take || (ask !== null && !/^n/i.test(await ask.question('Add these rules? [Y/n] ')));
  return yes ? { ...config, rules: proposed } : config;
}
