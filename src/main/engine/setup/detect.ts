// What a new user already has: provider keys in the environment and local model servers on
// their default loopback ports. Detection only reports; adding a provider is the user's choice,
// and one added from here names the variable (`apiKeyEnv`), never the key itself.

import type { DetectedProvider } from '../../../shared/contract';
import type { PresetEntry } from '../config/presets';

export interface DetectOptions {
  presets: readonly PresetEntry[];
  env: NodeJS.ProcessEnv;
  /** Base URL to probe per local preset id instead of its default (tests point at a fake server). */
  localUrls?: Readonly<Record<string, string>>;
  /** How long one local server may take to answer `/models` (default 800 ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 800;

/** Presets whose key variable holds a non-empty value, in the catalog's order. */
export function detectEnvKeys(
  presets: readonly PresetEntry[],
  env: NodeJS.ProcessEnv,
): DetectedProvider[] {
  return presets.flatMap((p) =>
    p.authClass !== 'local' && p.keyEnv && env[p.keyEnv]?.trim()
      ? [
          {
            preset: p.id,
            source: 'env' as const,
            keyEnv: p.keyEnv,
            baseUrl: p.baseUrl,
            models: p.models,
          },
        ]
      : [],
  );
}

/** The ids of an OpenAI-style `GET /models` answer (`{ data: [{ id }] }`); null if not one. */
export function modelIdsOf(body: unknown): string[] | null {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  return data.flatMap((m) =>
    typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : [],
  );
}

/** Local servers that answer `GET <baseUrl>/models` like an OpenAI server, with their models. */
export async function detectLocalServers(opts: DetectOptions): Promise<DetectedProvider[]> {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const probes = opts.presets
    .filter((p) => p.authClass === 'local')
    .map(async (p): Promise<DetectedProvider | null> => {
      const baseUrl = opts.localUrls?.[p.id] ?? p.baseUrl;
      try {
        const res = await doFetch(`${baseUrl}/models`, {
          signal: AbortSignal.timeout(timeoutMs),
          headers: { accept: 'application/json' },
        });
        if (!res.ok) return null;
        const models = modelIdsOf(await res.json());
        return models ? { preset: p.id, source: 'local', baseUrl, models } : null;
      } catch {
        // Nothing listening, not an OpenAI-style server, or too slow: not offered.
        return null;
      }
    });
  return (await Promise.all(probes)).filter((d): d is DetectedProvider => d !== null);
}

/** Environment keys first, then local servers; each preset at most once. */
export async function detectProviders(opts: DetectOptions): Promise<DetectedProvider[]> {
  return [...detectEnvKeys(opts.presets, opts.env), ...(await detectLocalServers(opts))];
}
