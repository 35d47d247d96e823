import { describe, expect, it } from 'vitest';
import { decideEffortFix } from '../../src/main/engine/resilience/shape/effort-clamp';
import {
  readErrorText,
  restoreFix,
  type ShapeFix,
} from '../../src/main/engine/resilience/shape/fix';
import { decideParameterFix } from '../../src/main/engine/resilience/shape/param-learning';
import { decideShapeRepair, MAX_REPAIRS } from '../../src/main/engine/resilience/shape/repair';
import { applyFix, nearestLevel } from '../../src/main/engine/resilience/shape/surgery';
import {
  ContentIdleFeed,
  carriesContent,
  idleVerdict,
} from '../../src/main/engine/resilience/stream/content-idle';

const ON = { parameterLearning: true, effortClamp: true, toolLimit: true, contextEditing: false };
const err = (message: string, param: string | null = null) => ({ message, param, code: null });

describe('readErrorText', () => {
  it('reads OpenAI, Anthropic, Groq and FastAPI (vLLM, Mistral) error bodies', () => {
    expect(
      readErrorText(JSON.stringify({ error: { message: 'm', param: 'top_p', code: 'c' } })),
    ).toEqual({ message: 'm', param: 'top_p', code: 'c' });
    expect(
      readErrorText(JSON.stringify({ type: 'error', error: { type: 'x', message: 'a: b' } })),
    ).toEqual({ message: 'a: b', param: null, code: 'x' });
    expect(
      readErrorText(
        JSON.stringify({
          detail: [
            {
              type: 'extra_forbidden',
              loc: ['body', 'top_k'],
              msg: 'Extra inputs are not permitted',
            },
          ],
        }),
      ),
    ).toEqual({
      message: 'top_k: Extra inputs are not permitted',
      param: 'top_k',
      code: 'extra_forbidden',
    });
    expect(readErrorText('upstream said no').message).toBe('upstream said no');
  });
});

describe('decideParameterFix', () => {
  const body = {
    model: 'm',
    temperature: 0.3,
    top_p: 0.9,
    top_k: 5,
    max_tokens: 9000,
    messages: [],
  };
  const cases: [string, string, ShapeFix | null][] = [
    [
      'OpenAI unsupported parameter with a replacement',
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      { kind: 'rename', mechanism: 'parameter', param: 'max_tokens', to: 'max_completion_tokens' },
    ],
    [
      'OpenAI unsupported value',
      "Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.",
      { kind: 'drop', mechanism: 'parameter', param: 'temperature' },
    ],
    [
      'Anthropic both specified',
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
      { kind: 'drop', mechanism: 'parameter', param: 'top_p' },
    ],
    [
      'pydantic extra input',
      'top_k: Extra inputs are not permitted',
      { kind: 'drop', mechanism: 'parameter', param: 'top_k' },
    ],
    [
      'Anthropic temperature range',
      'temperature: range: 0..0.2',
      { kind: 'range', mechanism: 'parameter', param: 'temperature', min: 0, max: 0.2 },
    ],
    [
      'OpenAI max_tokens too large',
      'max_tokens is too large: 9000. This model supports at most 4096 completion tokens, whereas you provided 9000.',
      { kind: 'range', mechanism: 'parameter', param: 'max_tokens', max: 4096 },
    ],
    [
      'a parameter that is not a tuning one is never dropped',
      "property 'messages' is unsupported",
      null,
    ],
    [
      'an absent parameter gives no fix',
      "Unsupported parameter: 'seed' is not supported with this model.",
      null,
    ],
    ['an unknown wording gives no fix', 'Something else went wrong.', null],
  ];
  for (const [name, message, fix] of cases) {
    it(name, () => expect(decideParameterFix(err(message), body)).toEqual(fix));
  }
});

describe('decideEffortFix', () => {
  it('a listed set of levels; one below when none is listed; the budget below max_tokens', () => {
    expect(
      decideEffortFix(
        err(
          "Unsupported value: 'reasoning.effort' does not support 'minimal' with this model. Supported values are: 'low', 'medium', and 'high'.",
        ),
        { reasoning: { effort: 'minimal' } },
      ),
    ).toEqual({
      kind: 'levels',
      mechanism: 'effort',
      param: 'reasoning.effort',
      allowed: ['low', 'medium', 'high'],
    });
    expect(
      decideEffortFix(err('effort level not supported', 'output_config.effort'), {
        output_config: { effort: 'max' },
      }),
    ).toMatchObject({ allowed: ['minimal', 'low', 'medium', 'high', 'xhigh'] });
    expect(
      decideEffortFix(err('`max_tokens` must be greater than `thinking.budget_tokens`.'), {
        max_tokens: 4000,
        thinking: { budget_tokens: 8000 },
      }),
    ).toEqual({
      kind: 'below',
      mechanism: 'effort',
      param: 'thinking.budget_tokens',
      than: 'max_tokens',
    });
  });

  it('respects the per-attempt caps and the switches', () => {
    const e = err("Unsupported parameter: 'top_p' is not supported with this model.");
    const b = { top_p: 1 };
    expect(decideShapeRepair(e, b, { parameter: 0, effort: 0 }, ON)).not.toBeNull();
    expect(decideShapeRepair(e, b, { parameter: MAX_REPAIRS.parameter, effort: 0 }, ON)).toBeNull();
    expect(
      decideShapeRepair(e, b, { parameter: 0, effort: 0 }, { ...ON, parameterLearning: false }),
    ).toBeNull();
  });
});

describe('request surgery', () => {
  it('is copy-on-write: the input is never changed', () => {
    const body = { thinking: { type: 'enabled', budget_tokens: 500 }, max_tokens: 10 };
    const frozen = JSON.stringify(body);
    const done = applyFix(body, {
      kind: 'range',
      mechanism: 'effort',
      param: 'thinking.budget_tokens',
      min: 1024,
    });
    expect(done?.body).toEqual({
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 10,
    });
    expect(JSON.stringify(body)).toBe(frozen);
  });

  it('clamps only what is out of range, and renames without overwriting', () => {
    const max = { kind: 'range', mechanism: 'parameter', param: 'max_tokens', max: 100 } as const;
    expect(applyFix({ max_tokens: 50 }, max)).toBeNull();
    expect(applyFix({ max_tokens: 500 }, max)?.body).toEqual({ max_tokens: 100 });
    const rename = { kind: 'rename', mechanism: 'parameter', param: 'a', to: 'b' } as const;
    expect(applyFix({ a: 1, b: 2 }, rename)?.body).toEqual({ b: 2 });
    expect(applyFix({ a: 1 }, rename)?.body).toEqual({ b: 1 });
  });

  it('moves an effort level to the nearest accepted one below, else the lowest', () => {
    expect(nearestLevel('xhigh', ['low', 'medium', 'high'])).toBe('high');
    expect(nearestLevel('minimal', ['low', 'medium', 'high'])).toBe('low');
    expect(nearestLevel('medium', ['high', 'low'])).toBe('low');
  });

  it('stored fixes come back as they were; anything else is dropped', () => {
    const fixes: ShapeFix[] = [
      { kind: 'drop', mechanism: 'parameter', param: 'top_p' },
      { kind: 'rename', mechanism: 'parameter', param: 'max_tokens', to: 'max_completion_tokens' },
      { kind: 'range', mechanism: 'effort', param: 'thinking.budget_tokens', min: 1024 },
      { kind: 'levels', mechanism: 'effort', param: 'reasoning_effort', allowed: ['low'] },
      { kind: 'below', mechanism: 'effort', param: 'thinking.budget_tokens', than: 'max_tokens' },
    ];
    for (const f of fixes) expect(restoreFix(JSON.parse(JSON.stringify(f)))).toEqual(f);
    expect(restoreFix({ kind: 'range', param: 'x' })).toBeNull();
    expect(restoreFix('nonsense')).toBeNull();
  });
});

describe('content idle', () => {
  it('heartbeats and empty deltas carry no content; text, tools, usage and ends do', () => {
    expect(carriesContent('anthropic', 'ping', '{"type":"ping"}')).toBe(false);
    expect(carriesContent('openai-chat', null, '{"choices":[{"delta":{}}]}')).toBe(false);
    expect(
      carriesContent(
        'openai-chat',
        null,
        '{"choices":[{"delta":{"role":"assistant","content":""}}]}',
      ),
    ).toBe(false);
    expect(carriesContent('openai-responses', null, '{"type":"response.in_progress"}')).toBe(false);
    expect(
      carriesContent('openai-responses', null, '{"type":"response.output_text.delta","delta":""}'),
    ).toBe(false);
    expect(carriesContent('openai-chat', null, '{"choices":[{"delta":{"content":"x"}}]}')).toBe(
      true,
    );
    expect(carriesContent('openai-chat', null, '{"choices":[{"delta":{"tool_calls":[{}]}}]}')).toBe(
      true,
    );
    expect(carriesContent('openai-chat', null, '{"choices":[],"usage":{"total_tokens":3}}')).toBe(
      true,
    );
    expect(carriesContent('openai-chat', null, '[DONE]')).toBe(true);
    expect(
      carriesContent(
        'anthropic',
        null,
        '{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"hm"}}',
      ),
    ).toBe(true);
  });

  it('the feed reports content per period and skips decoding once it has seen some', () => {
    const feed = new ContentIdleFeed('openai-chat');
    feed.push(Buffer.from(': keep-alive\n\n'));
    expect(feed.period()).toBe(false);
    feed.push(Buffer.from('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'));
    expect(feed.period()).toBe(true);
    expect(feed.period()).toBe(false);
  });

  it('idle once the timeout passed since the last period with content, never before', () => {
    expect(idleVerdict(0, false, 999, 1000)).toEqual({ idle: false, lastContentAt: 0 });
    expect(idleVerdict(0, false, 1000, 1000)).toEqual({ idle: true, lastContentAt: 0 });
    expect(idleVerdict(0, true, 1500, 1000)).toEqual({ idle: false, lastContentAt: 1500 });
  });
});
