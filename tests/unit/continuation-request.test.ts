import { describe, expect, it } from 'vitest';
import {
  CONTINUE_INSTRUCTION,
  continuationBody,
  continuationForm,
  decideContinuation,
} from '../../src/main/engine/resilience/continuation';
import { emptyRequest, type IrRequest } from '../../src/main/engine/translate/ir';

function conversation(): IrRequest {
  return {
    ...emptyRequest('m'),
    system: ['be brief'],
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Tell me a story' }] }],
    reasoning: { effort: 'high', budgetTokens: 8000 },
    maxTokens: 1000,
  };
}

describe('continuation requests, per upstream format', () => {
  it('Anthropic: the partial answer is a prefilled assistant turn, trimmed, thinking off', () => {
    const form = continuationForm('anthropic', 'https://api.anthropic.com');
    expect(form).toBe('prefill');
    const body = continuationBody(
      'anthropic',
      conversation(),
      'Once upon a time ',
      form,
      'anthropic',
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Tell me a story' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Once upon a time' }] },
    ]);
    expect(body.thinking).toBeUndefined();
    expect(body.stream).toBe(true);
  });

  it('Chat: an assistant message and the instruction to go on; DeepSeek beta: prefix', () => {
    const form = continuationForm('openai-chat', 'https://api.openai.com/v1');
    expect(form).toBe('instruction');
    const body = continuationBody('openai-chat', conversation(), 'Once upon ', form, 'openai');
    const messages = body.messages as Record<string, unknown>[];
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: 'Once upon ' });
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: CONTINUE_INSTRUCTION });
    const ds = continuationForm('openai-chat', 'https://api.deepseek.com/beta');
    expect(ds).toBe('prefix');
    const prefixed = continuationBody(
      'openai-chat',
      conversation(),
      'Once upon ',
      ds,
      'openai-chat',
    );
    expect((prefixed.messages as Record<string, unknown>[]).at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Once upon',
      prefix: true,
    });
  });

  it('Responses and Gemini: the instruction form, in their own shapes', () => {
    const r = continuationBody('openai-responses', conversation(), 'Once', 'instruction', 'openai');
    expect(JSON.stringify(r.input)).toContain('Once');
    expect(JSON.stringify(r.input)).toContain('exactly where it stopped');
    const g = continuationBody('gemini', conversation(), 'Once', 'instruction', 'gemini');
    const contents = g.contents as { role: string }[];
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
  });

  it('a client that prefilled the turn itself gets the partial answer after its prefill', () => {
    const ir = conversation();
    ir.messages.push({ role: 'assistant', parts: [{ type: 'text', text: '{"story": "' }] });
    const body = continuationBody('anthropic', ir, 'Once upon', 'prefill', 'anthropic');
    expect((body.messages as unknown[]).at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: '{"story": "Once upon' }],
    });
  });

  it('no partial text: the conversation goes unchanged (a fresh answer)', () => {
    const body = continuationBody('openai-chat', conversation(), '', 'instruction', 'openai');
    expect(body.messages).toHaveLength(2);
  });

  it('the original conversation is not changed', () => {
    const ir = conversation();
    continuationBody('anthropic', ir, 'Once', 'prefill', 'anthropic');
    expect(ir.messages).toHaveLength(1);
    expect(ir.reasoning).not.toBeNull();
  });
});

describe('whether a cut is continued, and where', () => {
  const base = {
    maxContinuations: 2,
    used: 0,
    chars: 120,
    at: 'text' as const,
    stopped: false,
    errorClass: 'stream_network',
    deadline: 10_000,
  };
  it('a reset or a stall continues on the same target; an error event or a watchdog cut on the next', () => {
    expect(decideContinuation(base, 0)).toEqual({ kind: 'continue', sameTarget: true });
    expect(decideContinuation({ ...base, errorClass: 'stream_timeout_idle' }, 0)).toMatchObject({
      sameTarget: true,
    });
    expect(decideContinuation({ ...base, errorClass: 'upstream_stream_error' }, 0)).toMatchObject({
      sameTarget: false,
    });
    expect(decideContinuation({ ...base, errorClass: 'throughput_watchdog' }, 0)).toMatchObject({
      sameTarget: false,
    });
  });
  it('off, used up, past the deadline, nothing shown yet, inside a tool call or unsigned thinking: no', () => {
    expect(decideContinuation({ ...base, maxContinuations: null }, 0).kind).toBe('end');
    expect(decideContinuation({ ...base, used: 2 }, 0).kind).toBe('end');
    expect(decideContinuation(base, 10_000).kind).toBe('end');
    expect(decideContinuation({ ...base, errorClass: 'stream_timeout_total' }, 0).kind).toBe('end');
    expect(decideContinuation({ ...base, chars: 0 }, 0).kind).toBe('end');
    expect(decideContinuation({ ...base, at: 'tool' }, 0).kind).toBe('end');
    expect(decideContinuation({ ...base, at: 'thinking' }, 0)).toMatchObject({
      reason: expect.stringMatching(/signature/),
    });
    expect(decideContinuation({ ...base, stopped: true }, 0).kind).toBe('end');
    expect(decideContinuation({ ...base, at: 'signed_thinking', chars: 0 }, 0).kind).toBe(
      'continue',
    );
  });
});
