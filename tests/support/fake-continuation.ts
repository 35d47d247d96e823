// The fake's side of mid-stream continuation (issue 28): a step that answers a continuation
// request with the rest of a known full answer, after the partial answer the request carries.

// biome-ignore lint/suspicious/noExplicitAny: request bodies of four formats.
type Body = any;

/** `FakeStep.finish`: the whole answer the request's partial answer is the start of. */
export interface FakeFinish {
  text: string;
  /** Repeat this many words from the end of the partial answer first (a sloppy model). */
  repeatWords?: number;
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: Body) => (typeof p?.text === 'string' ? p.text : '')).join('');
};

/** The text of the request's last assistant (model) turn, in any of the four formats. */
export function partialAnswerOf(body: Body): string {
  const turns: Body[] = Array.isArray(body?.messages)
    ? body.messages
    : Array.isArray(body?.input)
      ? body.input
      : Array.isArray(body?.contents)
        ? body.contents
        : [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i];
    if (t?.role === 'assistant') return textOf(t.content);
    if (t?.role === 'model') return textOf(t.parts);
  }
  return '';
}

/** What a continuation answers: the rest of `finish.text` after the partial answer. */
export function finishText(body: Body, finish: FakeFinish): string {
  const partial = partialAnswerOf(body);
  if (!finish.text.startsWith(partial)) return finish.text;
  const rest = finish.text.slice(partial.length);
  const k = finish.repeatWords ?? 0;
  if (k <= 0) return rest;
  const starts = [...partial.matchAll(/\S+/g)].map((m) => m.index ?? 0);
  const from = starts.length >= k ? starts[starts.length - k]! : 0;
  return partial.slice(from) + rest;
}

/** A text cut into words, each with the white space after it: `chunks` that end on words. */
export function wordsOf(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}
