// The words fusion, pipeline and context-relay put around the answers they pass between
// targets. Pure: requests and answers in, instructions out.
import { emptyRequest, type IrMessage, type IrRequest } from '../translate/ir';

/** One internal call's answer, as the next step reads it. */
export interface PeerAnswer {
  label: string;
  text: string;
}

/** Added to the judge's system prompt: the panel's answers, and the task. */
export function judgeInstruction(answers: readonly PeerAnswer[]): string {
  return [
    `You are the final writer. ${answers.length} other assistant${answers.length === 1 ? '' : 's'} answered the conversation below independently. Their answers follow, between markers.`,
    ...answers.map((a, i) => `<answer ${i + 1} from="${a.label}">\n${a.text}\n</answer ${i + 1}>`),
    'Write the single best answer to the last user message: keep what they get right, fix what they get wrong, and resolve their disagreements. Answer the user directly; do not mention the other answers.',
  ].join('\n\n');
}

/** Added to a pipeline step's system prompt: the draft the step before wrote. */
export function refineInstruction(draft: PeerAnswer): string {
  return [
    'Another assistant drafted an answer to the last user message of the conversation below. The draft follows, between markers.',
    `<draft from="${draft.label}">\n${draft.text}\n</draft>`,
    'Write an improved answer: correct mistakes, fill gaps, keep what is right. Answer the user directly; do not mention the draft.',
  ].join('\n\n');
}

/** The request that asks the summarizer to condense older turns. */
export function summaryRequest(older: readonly IrMessage[], maxTokens: number): IrRequest {
  return {
    ...emptyRequest(''),
    system: [
      'You condense conversations. Summarise the conversation you are given so that another assistant can continue it: the user goals, decisions, facts, file names, code and tool results that still matter, and open questions. Write only the summary.',
    ],
    messages: [{ role: 'user', parts: [{ type: 'text', text: transcript(older) }] }],
    maxTokens,
  };
}

/** Added to the system prompt in place of the summarised turns. */
export function summaryInstruction(summary: string, turns: number): string {
  return `The first ${turns} turn${turns === 1 ? '' : 's'} of this conversation were condensed into this summary:\n<summary>\n${summary}\n</summary>`;
}

/** The conversation as plain text, each part labelled with who said it. */
export function transcript(messages: readonly IrMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'text') lines.push(`${m.role}: ${p.text}`);
      else if (p.type === 'tool_call')
        lines.push(`${m.role} called tool ${p.name}(${p.arguments})`);
      else if (p.type === 'tool_result') {
        const text = p.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join(' ');
        lines.push(`tool result${p.isError ? ' (error)' : ''}: ${text}`);
      } else if (p.type === 'image') lines.push(`${m.role}: [image]`);
    }
  }
  return lines.join('\n');
}
