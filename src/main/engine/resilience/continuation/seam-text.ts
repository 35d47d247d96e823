import { MAX_OVERLAP_CHARS, seamOverlap } from './overlap';

/** Past this much held text the seam decides with what it has. */
const DECIDE_AT = MAX_OVERLAP_CHARS + 64;

const endsInSpace = (s: string): boolean => /\s$/.test(s);

/**
 * The first text of a continuation, held until the seam rule can tell how much of it repeats
 * the text before the cut; everything after that passes straight through.
 */
export class SeamText {
  private held = '';
  private decided = false;

  constructor(private readonly before: string) {}

  /** Continuation text in; what the client gets now out. */
  push(text: string): string {
    if (this.decided) return text;
    this.held += text;
    const n = seamOverlap(this.before, this.held, this.held.length >= DECIDE_AT);
    return n === null ? '' : this.decide(n);
  }

  /** Nothing more of the text follows (another kind of event, or the end): decide now. */
  flush(): string {
    if (this.decided) return '';
    return this.decide(seamOverlap(this.before, this.held, true) ?? 0);
  }

  private decide(n: number): string {
    this.decided = true;
    const rest = this.held.slice(n);
    this.held = '';
    // The client already has the space the cut fell after (a prefill cannot end in one, so
    // the model starts its continuation with it again).
    return endsInSpace(this.before) ? rest.trimStart() : rest;
  }
}
