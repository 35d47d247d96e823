import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

// RESILIENCE.md §11: a Responses request with `background: true` is served synchronously, with a
// warning header, on a Responses provider and where it is translated alike.

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  gw.resetResilience();
});

function responses(model: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hi', background: true, ...extra }),
  });
}

describe('background: true', () => {
  it('translated for an Anthropic provider: a completed response and a warning, not a refusal', async () => {
    const res = await responses('an/claude-test');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-warning')).toMatch(
      /background: true is served synchronously/,
    );
    expect(res.headers.get('x-breakwater-decision')).toMatch(/background served synchronously/);
    const body = (await res.json()) as { status: string; background: boolean };
    expect(body.status).toBe('completed');
    expect(body.background).toBe(false);
  });

  it('on a Responses provider: sent without background, so the upstream answers at once', async () => {
    const res = await responses('oa/gpt-test');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-breakwater-warning')).toMatch(/synchronously/);
    const sent = gw.primary.requests.filter((r) => r.method === 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).not.toHaveProperty('background');
  });

  it('streamed too; and background: false is left alone, with no warning', async () => {
    const streamed = await responses('an/claude-test', { stream: true });
    expect(streamed.headers.get('x-breakwater-warning')).toMatch(/synchronously/);
    expect(await streamed.text()).toContain('response.completed');
    const plain = await responses('oa/gpt-test', { background: false });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-breakwater-warning')).toBeNull();
  });
});
