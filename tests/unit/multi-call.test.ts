import { describe, expect, it } from 'vitest';
import { BoundedMaps } from '../../src/main/engine/bounded-map';
import {
  planRelay,
  RelaySessions,
  type RelayTarget,
} from '../../src/main/engine/routing/context-relay';
import {
  judgeInstruction,
  refineInstruction,
  summaryRequest,
  transcript,
} from '../../src/main/engine/routing/multi-call-prompts';
import type { IrMessage } from '../../src/main/engine/translate/ir';
import { startsIrTurn, turnStarts } from '../../src/main/engine/translate/turns';

const t = (label: string, contextWindow?: number, eligible = true): RelayTarget => ({
  label,
  eligible,
  contextWindow,
});

describe('planRelay', () => {
  const targets = [t('a', 100_000), t('b', 1000), t('c', 50_000)];

  it('a new session goes to the first eligible target that fits', () => {
    expect(planRelay({ targets, current: undefined, turns: [10], fixed: 5 })).toEqual({
      order: ['a', 'b', 'c'],
      summarize: 0,
      reason: 'new session: moved to a',
    });
  });

  it('a session stays while its target is eligible and fits', () => {
    const plan = planRelay({ targets, current: 'b', turns: [100, 100], fixed: 50 });
    expect(plan).toEqual({ order: ['b', 'a', 'c'], summarize: 0, reason: 'session stays on b' });
  });

  it('outgrowing the window moves on to the next target that fits, wrapping around', () => {
    const plan = planRelay({ targets, current: 'b', turns: [600, 600], fixed: 0 });
    expect(plan.order[0]).toBe('c');
    expect(plan.summarize).toBe(0);
    expect(plan.reason).toBe("conversation (~1200 tokens) outgrew b's window 1000: moved to c");
  });

  it('an ineligible target is left; a smaller window gets the newest turns and a summary', () => {
    const plan = planRelay({
      targets: [t('a', 100_000, false), t('b', 1000)],
      current: 'a',
      turns: [300, 300, 300, 200],
      fixed: 100,
    });
    // 1000 × 0.7 − 100 = 600 tokens for kept turns: the latest (200) and one more (300).
    expect(plan).toEqual({
      order: ['b', 'a'],
      summarize: 2,
      reason: "session's a is ineligible: moved to b (window 1000); 2 older turns summarised",
    });
  });

  it('the latest turn is always kept, even when it alone is too big', () => {
    const plan = planRelay({
      targets: [t('a', 10, false), t('b', 100)],
      current: 'a',
      turns: [50, 500],
      fixed: 0,
    });
    expect(plan.summarize).toBe(1);
  });

  it('nothing else eligible: the session stays where it was and says so', () => {
    const plan = planRelay({
      targets: [t('a', 100, false), t('b', 100, false)],
      current: 'a',
      turns: [10],
      fixed: 0,
    });
    expect(plan).toEqual({
      order: ['a', 'b'],
      summarize: 0,
      reason: "session's a is ineligible; no other eligible target",
    });
  });

  it('unknown windows count as fitting; a target that left the combo is said so', () => {
    const plan = planRelay({ targets: [t('x')], current: 'gone', turns: [1e9], fixed: 0 });
    expect(plan).toEqual({
      order: ['x'],
      summarize: 0,
      reason: "session's gone left the combo: moved to x",
    });
  });

  it('returns a permutation of the targets', () => {
    for (const current of [undefined, 'a', 'b', 'c']) {
      for (const turns of [[1], [2000, 2000], [10, 10, 10, 900]]) {
        const plan = planRelay({ targets, current, turns, fixed: 10 });
        expect([...plan.order].sort()).toEqual(['a', 'b', 'c']);
        expect(plan.summarize).toBeGreaterThanOrEqual(0);
        expect(plan.summarize).toBeLessThan(turns.length);
      }
    }
  });
});

describe('RelaySessions', () => {
  it('remembers per combo and session, and lets the least recent go past its limit', () => {
    const s = new RelaySessions(new BoundedMaps(() => 0), 2);
    s.set('c', 's1', 'a', 0);
    s.set('c', 's2', 'b', 0);
    s.set('d', 's1', 'z', 0);
    expect(s.get('c', 's1', 0)).toBeUndefined();
    expect(s.get('c', 's2', 0)).toBe('b');
    expect(s.get('d', 's1', 0)).toBe('z');
  });

  it('forgets a session a day after its last answer', () => {
    const s = new RelaySessions(new BoundedMaps(() => 0));
    s.set('c', 's1', 'a', 0);
    expect(s.get('c', 's1', 24 * 3_600_000 - 1)).toBe('a');
    expect(s.get('c', 's1', 24 * 3_600_000)).toBeUndefined();
  });
});

const user = (text: string): IrMessage => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): IrMessage => ({
  role: 'assistant',
  parts: [{ type: 'text', text }],
});

describe('turn boundaries on the IR', () => {
  it('a tool result continues the turn of its call', () => {
    const messages: IrMessage[] = [
      user('one'),
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{}' }] },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'c1',
            content: [{ type: 'text', text: 'r' }],
            isError: false,
          },
        ],
      },
      assistant('done'),
      user('two'),
    ];
    expect(turnStarts(messages, () => false, startsIrTurn)).toEqual([0, 4]);
  });
});

describe('the words between calls', () => {
  it('the judge sees every answer with its source; the refiner sees the draft', () => {
    const judge = judgeInstruction([
      { label: 'a/m', text: 'yes' },
      { label: 'b/m', text: 'no' },
    ]);
    expect(judge).toContain('<answer 1 from="a/m">\nyes\n</answer 1>');
    expect(judge).toContain('<answer 2 from="b/m">\nno\n</answer 2>');
    expect(refineInstruction({ label: 'a/m', text: 'draft' })).toContain(
      '<draft from="a/m">\ndraft\n</draft>',
    );
  });

  it('the summarizer gets the older turns as a transcript, tool calls included', () => {
    const req = summaryRequest(
      [
        user('hi'),
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{"q":1}' }],
        },
      ],
      500,
    );
    expect(req.maxTokens).toBe(500);
    expect(req.stream).toBe(false);
    expect(transcript(req.messages)).toContain('user: hi\nassistant called tool f({"q":1})');
  });
});
