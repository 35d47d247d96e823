// One file of an agent's config as connect changes it and as undo takes that change out again,
// built from the same keys so the two cannot drift apart.
import { isDeepStrictEqual } from 'node:util';
import { editDotenv, editJson, editToml, readJson } from './edits';
import { at, revertDotenv, revertJson, revertToml } from './reverts';

/** One file of an agent's config and how connect changes its text (null: absent). */
export interface FileEdit {
  path: string;
  edit(text: string | null): string;
  /**
   * Takes connect's change out of the file as it is now (`original`: before connect, null when
   * connect created it); null when nothing of the user's is left.
   */
  revert(text: string, original: string | null): string | null;
}

/**
 * Dotted JSON paths set (an undefined value removes). `optional` paths are set only when the
 * user asks for them, so undo takes one out only while the file still holds connect's value:
 * a value the user set since, or kept by connecting without asking, stays.
 */
export function jsonFile(
  path: string,
  values: Record<string, unknown>,
  optional: Record<string, unknown> = {},
): FileEdit {
  return {
    path,
    edit: (text) => editJson(path, text, { ...values, ...optional }),
    revert: (text, original) => {
      const now = text.trim() === '' ? {} : readJson(path, text);
      const ours = Object.keys(optional).filter((k) => isDeepStrictEqual(at(now, k), optional[k]));
      return revertJson(path, text, original, [...Object.keys(values), ...ours]);
    },
  };
}

export function dotenvFile(path: string, values: Record<string, string>): FileEdit {
  return {
    path,
    edit: (text) => editDotenv(path, text, values),
    revert: (text, original) => revertDotenv(text, original, Object.keys(values)),
  };
}

/** Top-level keys (all that connect may set, for undo) and one table replaced whole. */
export function tomlFile(
  path: string,
  topKeys: readonly string[],
  top: Record<string, string>,
  table: { name: string; values: Record<string, string> },
): FileEdit {
  return {
    path,
    edit: (text) => editToml(path, text, top, table),
    revert: (text, original) => revertToml(path, text, original, topKeys, table.name),
  };
}
