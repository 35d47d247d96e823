// A JSON syntax error as a reason and a place that never quote the text. V8's messages carry a
// snippet of the input around the error ("Unexpected token 's', "...": sk-live-..."..."), and
// the input is often a file full of keys, so only the kind of error and its line are kept.

export interface JsonSyntax {
  /** What is wrong, without any of the input: `unexpected token`, `unterminated string`, … */
  reason: string;
  line: number;
  column: number;
}

/** Line and column (1-based) of a character offset. */
function placeOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  return { line, column: end - start + 1 };
}

/** Where V8's message puts the error: a position, a line and column, or its snippet. */
function offsetOf(text: string, message: string): number {
  const position = /at position (\d+)/.exec(message);
  if (position) return Number(position[1]);
  // `Unexpected token 'c', ..."<10 chars before><after>"... is not valid JSON`
  const snippet =
    /^Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON$/.exec(
      message,
    );
  if (snippet) {
    const [, token, cut, context] = snippet as unknown as [
      string,
      string,
      string | undefined,
      string,
    ];
    const at = text.indexOf(context);
    if (at >= 0) return cut ? at + 10 : at + Math.max(0, context.indexOf(token));
  }
  return text.length;
}

export function jsonSyntaxOf(text: string, err: unknown): JsonSyntax {
  const message = err instanceof Error ? err.message : String(err);
  const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
  const place = lineCol
    ? { line: Number(lineCol[1]), column: Number(lineCol[2]) }
    : placeOf(text, offsetOf(text, message));
  // Cut at the first quote around anything but JSON punctuation: that is input, not syntax.
  const kind = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s+in JSON at position \d+.*$/s, '')
    .split(/'[^,:{}[\]']'|"/)[0]!
    .replace(/[\s,]+$/, '');
  const reason = kind === '' ? 'syntax error' : kind[0]!.toLowerCase() + kind.slice(1);
  return { reason, ...place };
}
