// Turn boundaries, shared by every code that removes or replaces older turns of a conversation
// (context editing on the wire body, context-relay on the IR): a turn starts at a user message
// that is not only tool results, so a tool call and its result always fall in the same turn.
import type { IrMessage } from './ir';

/** The indexes where turns start, after the leading items `isSystem` says are instructions. */
export function turnStarts<T>(
  items: readonly T[],
  isSystem: (item: T) => boolean,
  startsTurn: (item: T) => boolean,
): number[] {
  let i = 0;
  while (i < items.length && isSystem(items[i]!)) i++;
  const starts: number[] = [];
  for (let j = i; j < items.length; j++) if (startsTurn(items[j]!)) starts.push(j);
  return starts;
}

/** An IR message that opens a turn: the user speaking, not tool results coming back. */
export function startsIrTurn(m: IrMessage): boolean {
  return (
    m.role === 'user' && !(m.parts.length > 0 && m.parts.every((p) => p.type === 'tool_result'))
  );
}
