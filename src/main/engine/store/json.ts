// JSON column helpers shared by the repositories.

/** Parses a JSON column, returning `fallback` when the text is missing or corrupt. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function parseStringArray(text: unknown): string[] {
  const value = parseJson<unknown>(text, []);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function parseObject<T extends object>(text: unknown): T {
  const value = parseJson<unknown>(text, {});
  return (value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}) as T;
}
