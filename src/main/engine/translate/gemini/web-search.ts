// Web searches the gateway ran, as Gemini's grounding metadata on the answer's candidate.
// https://ai.google.dev/gemini-api/docs/google-search
import type { IrWebSearch, Json } from '../ir';

export function groundingMetadata(searches: readonly IrWebSearch[]): Json {
  return {
    webSearchQueries: searches.filter((s) => s.query !== '').map((s) => s.query),
    groundingChunks: searches.flatMap((s) =>
      s.results.map((r) => ({ web: { uri: r.url, title: r.title } })),
    ),
  };
}
