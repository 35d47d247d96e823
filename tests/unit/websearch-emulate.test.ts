import { describe, expect, it } from 'vitest';
import {
  emptyRequest,
  emptyUsage,
  type IrRequest,
  type IrResponse,
} from '../../src/main/engine/translate/ir';
import {
  type EmulationIo,
  emulateSearch,
  searchesOf,
} from '../../src/main/engine/websearch/emulate';

const tool = { maxUses: 2, allowedDomains: [], blockedDomains: [] };

function answer(parts: IrResponse['parts'], input = 10): IrResponse {
  return {
    id: 'r',
    model: 'm',
    parts,
    stop: parts.some((p) => p.type === 'tool_call') ? 'tool_use' : 'end',
    stopSequence: null,
    usage: { ...emptyUsage(), input, output: 5 },
  };
}
const call = (id: string, args: string, name = 'web_search') =>
  ({ type: 'tool_call', id, name, arguments: args }) as const;

/** An io whose model answers from `script` in turn; every search finds one result. */
function io(script: IrResponse[], searchOk = true) {
  const seen: IrRequest[] = [];
  const queries: string[] = [];
  const shownLive: string[] = [];
  let n = 0;
  const x: EmulationIo<{ status: number }> = {
    call: async (ir) => {
      seen.push(structuredClone(ir));
      const r = script.shift();
      return r ? { ok: true, response: r } : { ok: false, error: { status: 502 } };
    },
    search: async (ask) => {
      queries.push(ask.query);
      return searchOk
        ? {
            ok: true,
            results: [{ url: 'https://r.test/', title: 'R', snippet: 's', pageAge: null }],
          }
        : { ok: false, reason: 'backend down' };
    },
    shown: (item) => shownLive.push(item.type),
    newId: () => `srvtoolu_${++n}`,
  };
  return { x, seen, queries, shownLive };
}

describe('the search loop', () => {
  it('offers web_search as a function, answers each call, stops at the first plain answer', async () => {
    const { x, seen, queries } = io([
      answer([call('c1', '{"query":"one"}')]),
      answer([{ type: 'text', text: 'done' }]),
    ]);
    const r = await emulateSearch({ ...emptyRequest('m'), stream: true }, tool, x);
    expect(r.ok && r.final.parts).toEqual([{ type: 'text', text: 'done' }]);
    expect(r.ok && r.final.usage).toMatchObject({ input: 20, output: 10, webSearchRequests: 1 });
    expect(queries).toEqual(['one']);
    expect(seen[0]!.tools.map((t) => t.name)).toEqual(['web_search']);
    expect(seen[0]!.stream).toBe(false);
    const last = seen[1]!.messages.at(-1)!;
    expect(last.parts[0]).toMatchObject({ type: 'tool_result', callId: 'c1', isError: false });
  });

  it("the model's words before a search are shown before it, as they happen", async () => {
    const { x, shownLive } = io([
      answer([{ type: 'text', text: 'Let me look.' }, call('c1', '{"query":"one"}')]),
      answer([{ type: 'text', text: 'done' }]),
    ]);
    const r = await emulateSearch(emptyRequest('m'), tool, x);
    expect(r.shown.map((s) => (s.type === 'text' ? s.text : s.search.query))).toEqual([
      'Let me look.',
      'one',
    ]);
    expect(shownLive).toEqual(['text', 'web_search']);
    expect(r.ok && r.final.parts).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('calls past max_uses get max_uses_exceeded; bad arguments get invalid_tool_input', async () => {
    const { x, queries } = io([
      answer([call('a', '{"query":"1"}'), call('b', 'not json'), call('c', '{"query":"2"}')]),
      answer([call('d', '{"query":"3"}')]),
      answer([{ type: 'text', text: 'ok' }]),
    ]);
    const r = await emulateSearch(emptyRequest('m'), tool, x);
    expect(queries).toEqual(['1', '2']);
    expect(searchesOf(r.shown).map((s) => s.error?.code ?? 'ok')).toEqual([
      'ok',
      'invalid_tool_input',
      'ok',
      'max_uses_exceeded',
    ]);
    expect(r.ok && r.final.usage.webSearchRequests).toBe(2);
  });

  it('ends after max_uses + 2 model calls whatever the model does', async () => {
    const loop = Array.from({ length: 10 }, (_, i) => answer([call(`c${i}`, '{"query":"again"}')]));
    const { x, seen } = io(loop);
    const r = await emulateSearch(emptyRequest('m'), tool, x);
    expect(seen).toHaveLength(4);
    expect(r.ok && r.final.parts).toEqual([]);
    expect(r.ok && r.final.stop).toBe('end');
  });

  it("a forced search choice is released after the first search; the client's own tools end the loop", async () => {
    const { x, seen } = io([
      answer([call('c1', '{"query":"q"}')]),
      answer([call('c2', '{"query":"q2"}'), call('t1', '{}', 'get_time')]),
    ]);
    const req = { ...emptyRequest('m'), toolChoice: { type: 'tool' as const, name: 'web_search' } };
    const r = await emulateSearch(req, tool, x);
    expect(seen[1]!.toolChoice).toBeNull();
    expect(r.ok && r.final.parts.map((p) => p.type === 'tool_call' && p.name)).toEqual([
      'get_time',
    ]);
    expect(r.ok && r.final.stop).toBe('tool_use');
  });

  it('a backend that is down is told to the model in one sentence', async () => {
    const { x, seen } = io(
      [answer([call('c1', '{"query":"q"}')]), answer([{ type: 'text', text: 'sorry' }])],
      false,
    );
    const r = await emulateSearch(emptyRequest('m'), tool, x);
    const result = seen[1]!.messages.at(-1)!.parts[0];
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: 'web search is unavailable: backend down.' }],
    });
    expect(r.ok && r.final.usage.webSearchRequests).toBe(0);
  });

  it("the model's failure ends the loop with its error", async () => {
    const { x } = io([answer([call('c1', '{"query":"q"}')])]);
    const r = await emulateSearch(emptyRequest('m'), tool, x);
    expect(r.ok).toBe(false);
    expect(searchesOf(r.shown)).toHaveLength(1);
  });
});
