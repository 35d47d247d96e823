// Undo of a file the user has edited since connect: only connect's own keys go back to what
// the file had before connect (or away, when it had none), so everything added since stays.
// Each takes the file now and the original (null: connect created it) and returns the new text,
// or null when nothing is left of the user's (the file connect created goes away).
import {
  AgentConfigError,
  ENV_LINE,
  editJson,
  indentOf,
  isObject,
  type Json,
  readJson,
  readToml,
  TABLE_HEADER,
} from './edits';

export function at(root: unknown, dotted: string): unknown {
  let v = root;
  for (const k of dotted.split('.')) v = isObject(v) ? v[k] : undefined;
  return v;
}

/** JSON: each path connect set gets the original's value back (absent: removed). */
export function revertJson(
  path: string,
  text: string,
  original: string | null,
  keys: readonly string[],
): string | null {
  const before = original === null || original.trim() === '' ? {} : readJson(path, original);
  const reverted = editJson(path, text, Object.fromEntries(keys.map((k) => [k, at(before, k)])));
  const root = readJson(path, reverted) as Json;
  // Objects connect made only to hold its keys go too, deepest first.
  const parents = keys.flatMap((k) =>
    k
      .split('.')
      .slice(0, -1)
      .map((_, i, a) => a.slice(0, i + 1).join('.')),
  );
  for (const parent of [...new Set(parents)].sort((a, b) => b.length - a.length)) {
    const v = at(root, parent);
    if (!isObject(v) || Object.keys(v).length > 0 || at(before, parent) !== undefined) continue;
    const owner = parent.includes('.') ? at(root, parent.slice(0, parent.lastIndexOf('.'))) : root;
    if (isObject(owner)) delete owner[parent.slice(parent.lastIndexOf('.') + 1)];
  }
  if (original === null && Object.keys(root).length === 0) return null;
  const out = JSON.stringify(root, null, indentOf(text));
  return text.endsWith('\n') ? `${out}\n` : out;
}

const envKey = (line: string) => ENV_LINE.exec(line)?.[1];

/** dotenv: each variable connect set gets its original line back (absent: the line goes). */
export function revertDotenv(
  text: string,
  original: string | null,
  keys: readonly string[],
): string | null {
  const before = new Map<string, string>();
  for (const line of (original ?? '').split('\n')) {
    const k = envKey(line);
    if (k !== undefined && !before.has(k)) before.set(k, line);
  }
  const out = text
    .replace(/\n$/, '')
    .split('\n')
    .flatMap((line) => {
      const k = envKey(line);
      if (k === undefined || !keys.includes(k)) return [line];
      return before.has(k) ? [before.get(k)!] : [];
    });
  if (original === null && out.every((l) => l.trim() === '')) return null;
  return `${out.join('\n')}\n`;
}

/** The lines of `[name]` up to the next table, without the blank lines that end it. */
function tableSpan(lines: readonly string[], name: string): [number, number] | null {
  const start = lines.findIndex((l) => l.trim() === `[${name}]`);
  if (start < 0) return null;
  let end = lines.findIndex((l, i) => i > start && TABLE_HEADER.test(l));
  if (end < 0) end = lines.length;
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
  return [start, end];
}

/** TOML: the top-level keys and the table connect set get the original's lines back. */
export function revertToml(
  path: string,
  text: string,
  original: string | null,
  topKeys: readonly string[],
  table: string,
): string | null {
  const lines = text.replace(/\n$/, '').split('\n');
  const before = (original ?? '').replace(/\n$/, '').split('\n');
  const topOf = (ls: readonly string[]) => {
    const first = ls.findIndex((l) => TABLE_HEADER.test(l));
    return first < 0 ? ls.length : first;
  };
  const keyLine = (ls: readonly string[], key: string) =>
    ls.slice(0, topOf(ls)).findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
  const span = tableSpan(lines, table);
  const old = tableSpan(before, table);
  if (span) {
    const [start, end] = span;
    const replacement = old ? before.slice(old[0], old[1]) : [];
    // The blank line connect put before a table it appended goes with it.
    const from = !old && start > 0 && lines[start - 1]!.trim() === '' ? start - 1 : start;
    lines.splice(from, end - from, ...replacement);
  }
  for (const key of topKeys) {
    const i = keyLine(lines, key);
    if (i < 0) continue;
    const j = keyLine(before, key);
    if (j >= 0) lines[i] = before[j]!;
    else lines.splice(i, 1);
  }
  const out = `${lines.join('\n')}\n`;
  try {
    readToml(path, out);
  } catch {
    throw new AgentConfigError(`${path}: cannot take out ${table} without rewriting the file`);
  }
  if (original === null && out.trim() === '') return null;
  return out;
}
