// The seam rule: where a continuation starts by repeating the last words before the cut, those
// words are shown once. Matching is on the text with whitespace runs treated as one space, so a
// model that repeats "fox  jumps" as "fox jumps" (or after a line break) still matches.

/** A repeat shorter than this many non-space characters is taken as new text, not an overlap. */
export const MIN_OVERLAP_CHARS = 6;
/** How far back before the cut an overlap is looked for (characters). */
export const MAX_OVERLAP_CHARS = 400;

const isSpace = (c: number): boolean =>
  c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0;
const isWordChar = (ch: string): boolean => /[\p{L}\p{N}_]/u.test(ch);

/**
 * How many characters at the start of `after` repeat the end of `before`, or null when `after`
 * is still too short to tell (`complete` says no more of it will come).
 *
 * A match must start at a word start in `before`, end at a word end in `after` (or at its end),
 * and hold at least MIN_OVERLAP_CHARS non-space characters; the longest one wins.
 */
export function seamOverlap(before: string, after: string, complete: boolean): number | null {
  const tail = before.length > MAX_OVERLAP_CHARS ? before.slice(-MAX_OVERLAP_CHARS) : before;
  const tailEnd = trimEndIndex(tail);
  for (let s = 0; s < tailEnd; s++) {
    if (!startsWord(tail, s)) continue;
    const m = matchFrom(tail, s, tailEnd, after);
    // A longer repeat wins: while one may still match, wait for more text.
    if (m === 'short') {
      if (!complete) return null;
      continue;
    }
    if (m === null) continue;
    const { end, solid } = m;
    if (solid < MIN_OVERLAP_CHARS) continue;
    if (end < after.length && isWordChar(after[end]!) && isWordChar(after[end - 1]!)) continue;
    if (end === after.length && !complete) return null;
    return end;
  }
  return 0;
}

function trimEndIndex(s: string): number {
  let i = s.length;
  while (i > 0 && isSpace(s.charCodeAt(i - 1))) i--;
  return i;
}

function startsWord(s: string, i: number): boolean {
  if (isSpace(s.charCodeAt(i))) return false;
  return i === 0 || isSpace(s.charCodeAt(i - 1)) || !isWordChar(s[i - 1]!) || !isWordChar(s[i]!);
}

/**
 * Compares `tail[s, tailEnd)` with the start of `after` (leading space of `after` skipped),
 * whitespace runs equal to each other. The index in `after` where the match ends and how many
 * non-space characters it held; 'short' when `after` ran out first; null on a mismatch.
 */
function matchFrom(
  tail: string,
  s: number,
  tailEnd: number,
  after: string,
): { end: number; solid: number } | 'short' | null {
  let j = 0;
  while (j < after.length && isSpace(after.charCodeAt(j))) j++;
  let i = s;
  let solid = 0;
  while (i < tailEnd) {
    const a = tail.charCodeAt(i);
    if (isSpace(a)) {
      while (i < tailEnd && isSpace(tail.charCodeAt(i))) i++;
      if (j >= after.length) return 'short';
      if (!isSpace(after.charCodeAt(j))) return null;
      while (j < after.length && isSpace(after.charCodeAt(j))) j++;
      continue;
    }
    if (j >= after.length) return 'short';
    if (after.charCodeAt(j) !== a) return null;
    i++;
    j++;
    solid++;
  }
  return { end: j, solid };
}
