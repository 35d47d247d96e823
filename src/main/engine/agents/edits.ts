// Pure edits of the config file formats agents use: JSON, dotenv and TOML. Each takes the file's
// text (null when it does not exist) and returns the new text, changing only the keys it sets;
// a file it cannot read as its format is refused with AgentConfigError and nothing is written.

import { jsonSyntaxOf } from '../json-syntax';
import { toml } from '../lazy-module';

/** A file an agent would not read as it is: connect refuses it and leaves it untouched. */
export class AgentConfigError extends Error {}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The indentation the file already uses (two spaces when it has none to copy). */
export function indentOf(text: string): string | number {
  const m = /\n([ \t]+)"/.exec(text);
  return m ? m[1]! : 2;
}

/** The file's JSON; a syntax error names its line, never the text there (it may be a key). */
export function readJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, line, column } = jsonSyntaxOf(text, err);
    throw new AgentConfigError(
      `${path} is not valid JSON (${reason} at line ${line} column ${column})`,
    );
  }
}

/**
 * Sets `values` (dotted paths, `undefined` removes) in a JSON object file. Key order, the
 * indentation and the final newline are kept; every other member keeps its value.
 */
export function editJson(
  path: string,
  text: string | null,
  values: Record<string, unknown>,
): string {
  let root: Json = {};
  if (text !== null && text.trim() !== '') {
    const parsed = readJson(path, text);
    if (!isObject(parsed)) throw new AgentConfigError(`${path} is not a JSON object`);
    root = parsed;
  }
  for (const [dotted, value] of Object.entries(values)) {
    const keys = dotted.split('.');
    let at = root;
    keys.slice(0, -1).forEach((k, i) => {
      const next = at[k];
      if (next !== undefined && !isObject(next)) {
        throw new AgentConfigError(`${path}: ${keys.slice(0, i + 1).join('.')} is not an object`);
      }
      at[k] = next ?? {};
      at = at[k] as Json;
    });
    if (value === undefined) delete at[keys.at(-1)!];
    else at[keys.at(-1)!] = value;
  }
  const out = JSON.stringify(root, null, text ? indentOf(text) : 2);
  return text !== null && !text.endsWith('\n') && text !== '' ? out : `${out}\n`;
}

export const ENV_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;

/** Sets `KEY=value` lines of a dotenv file: an existing line is replaced in place, a new one appended. */
export function editDotenv(
  path: string,
  text: string | null,
  values: Record<string, string>,
): string {
  const lines = text === null || text === '' ? [] : text.replace(/\n$/, '').split('\n');
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#') && !ENV_LINE.test(line)) {
      throw new AgentConfigError(`${path} line ${i + 1} is not KEY=value`);
    }
  });
  // A line break in a value would start another variable (`NODE_OPTIONS=...`) in the file.
  for (const [key, value] of Object.entries(values))
    if (/[\r\n\0]/.test(value))
      throw new AgentConfigError(`${path}: the value of ${key} has a line break; refused`);
  const pending = new Map(Object.entries(values));
  const out = lines.map((line) => {
    const key = ENV_LINE.exec(line)?.[1];
    if (key === undefined || !pending.has(key)) return line;
    const value = pending.get(key)!;
    pending.delete(key);
    return `${key}=${value}`;
  });
  for (const [key, value] of pending) out.push(`${key}=${value}`);
  return `${out.join('\n')}\n`;
}

export const TABLE_HEADER = /^\s*\[/;

export function readToml(path: string, text: string): Json {
  try {
    return toml().parse(text) as Json;
  } catch (err) {
    throw new AgentConfigError(
      `${path} is not valid TOML (${(err as Error).message.split('\n')[0]})`,
    );
  }
}

/**
 * Sets top-level keys and replaces (or appends) one table of a TOML file, line by line, so
 * comments and everything else stay as they were. The result is parsed again and must hold
 * exactly the values set, or the file is refused (a layout this edit cannot handle safely, such
 * as the table also being defined inline).
 */
export function editToml(
  path: string,
  text: string | null,
  topLevel: Record<string, string>,
  table: { name: string; values: Record<string, string> },
): string {
  const source = text ?? '';
  if (source.trim() !== '') readToml(path, source);
  const lines = source === '' ? [] : source.replace(/\n$/, '').split('\n');
  const tomlString = (s: string) => JSON.stringify(s);
  let firstTable = lines.findIndex((l) => TABLE_HEADER.test(l));
  if (firstTable < 0) firstTable = lines.length;
  const inserted: string[] = [];
  for (const [key, value] of Object.entries(topLevel)) {
    const line = `${key} = ${tomlString(value)}`;
    const at = lines.slice(0, firstTable).findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
    if (at >= 0) lines[at] = line;
    else inserted.push(line);
  }
  lines.splice(0, 0, ...inserted);
  const header = `[${table.name}]`;
  const block = [
    header,
    ...Object.entries(table.values).map(([k, v]) => `${k} = ${tomlString(v)}`),
  ];
  const start = lines.findIndex((l) => l.trim() === header);
  if (start >= 0) {
    let end = lines.findIndex((l, i) => i > start && TABLE_HEADER.test(l));
    if (end < 0) end = lines.length;
    // Keep the blank lines that separated the table from the next one.
    while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
    lines.splice(start, end - start, ...block);
  } else {
    if (lines.length > 0 && lines.at(-1)!.trim() !== '') lines.push('');
    lines.push(...block);
  }
  const out = `${lines.join('\n')}\n`;
  const refused = new AgentConfigError(
    `${path}: cannot set ${table.name} without rewriting the file`,
  );
  let check: Json;
  try {
    check = toml().parse(out) as Json;
  } catch {
    throw refused;
  }
  let tableValue: unknown = check;
  for (const k of table.name.split('.'))
    tableValue = isObject(tableValue) ? tableValue[k] : undefined;
  const ok =
    Object.entries(topLevel).every(([k, v]) => check[k] === v) &&
    isObject(tableValue) &&
    Object.entries(table.values).every(([k, v]) => tableValue[k] === v);
  if (!ok) throw refused;
  return out;
}
