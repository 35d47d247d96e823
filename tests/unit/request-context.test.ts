import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/main/engine/config/catalog';
import { findEndpoint } from '../../src/main/engine/proxy/endpoints';
import { committed, contextFor, doorFor } from '../../src/main/engine/proxy/pipeline/context';
import type { PipelineDeps } from '../../src/main/engine/proxy/pipeline/deps';
import { rewriteConversation } from '../../src/main/engine/proxy/pipeline/multi-call';
import { inputTokensOf, irOf } from '../../src/main/engine/proxy/pipeline/request-ir';

function context() {
  const req = { url: '/v1/chat/completions', headers: {} } as IncomingMessage;
  const door = doorFor(req, {} as ServerResponse, new URL('http://gateway/v1/chat/completions'));
  const raw = Buffer.from(
    JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 9 }),
  );
  const deps = {
    clock: { now: () => 1 },
    catalog: () => new Catalog([], [], {}),
    continuation: () => null,
  } as unknown as PipelineDeps;
  return contextFor(door, findEndpoint('/v1/chat/completions')!, raw, deps);
}

describe('a request context keeps one set of members for its whole life', () => {
  it('what stages set later (the IR, its token estimate, translations, a rewrite, the commit) adds and deletes none', () => {
    const ctx = context();
    const members = Object.keys(ctx);
    // Members a stage may set later are there from the start (V8 then gives every context one
    // shape, whichever features a request touches).
    for (const later of ['ir', 'inputTokens', 'translated', 'seam', 'warnings', 'captured']) {
      expect(members).toContain(later);
    }
    irOf(ctx);
    inputTokensOf(ctx);
    ctx.translated = new Map();
    ctx.captured = null;
    rewriteConversation(ctx, irOf(ctx));
    committed(ctx);
    expect(Object.keys(ctx)).toEqual(members);
    expect(ctx.ir).toBeUndefined();
    expect(ctx.translated).toBeUndefined();
  });

  it('a rewritten conversation is what the IR and the token estimate read next, not the old one', () => {
    const ctx = context();
    const before = irOf(ctx);
    const tokensBefore = inputTokensOf(ctx);
    const longer = 'a much longer instruction for the final call '.repeat(20);
    rewriteConversation(ctx, {
      ...before,
      messages: [{ role: 'user', parts: [{ type: 'text', text: longer }] }],
    });
    const after = irOf(ctx);
    expect(after).not.toBe(before);
    expect(JSON.stringify(after.messages)).toContain('a much longer instruction');
    expect(inputTokensOf(ctx)).toBeGreaterThan(tokensBefore);
  });
});
