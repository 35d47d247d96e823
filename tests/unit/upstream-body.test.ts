import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BodyDestroyedError,
  type BodyReader,
  type BodySource,
  UpstreamBody,
} from '../../src/main/engine/upstream/upstream-body';

/** A source that records what the body asked of it. */
function source() {
  const calls: string[] = [];
  let aborted: Error | null = null;
  const src: BodySource = {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abort: (reason) => {
      aborted = reason;
      calls.push('abort');
    },
  };
  return { src, calls, aborted: () => aborted };
}

/** A reader that records everything and pauses when `pauseWhen` says so. */
function reader(pauseWhen: (chunk: Buffer, index: number) => boolean = () => false) {
  const seen: string[] = [];
  const events: string[] = [];
  let errored: Error | null = null;
  const r: BodyReader = {
    data: (chunk) => {
      seen.push(chunk.toString());
      return !pauseWhen(chunk, seen.length - 1);
    },
    end: () => events.push('end'),
    error: (err) => {
      errored = err;
      events.push('error');
    },
  };
  return { r, seen, events, errored: () => errored };
}

const b = (s: string) => Buffer.from(s);

describe('UpstreamBody lets go of its reader once it has told it how the body ended', () => {
  // The body can stay referenced after its answer; a reader kept with it (a relay, with what it
  // kept of the stream) held the stream's socket buffers past the next scavenges.
  const readerOf = (body: UpstreamBody) => (body as unknown as { reader: unknown }).reader;
  it.each([
    ['the end', (body: UpstreamBody) => body.end()],
    ['a failure', (body: UpstreamBody) => body.fail(new Error('reset'))],
    ['a destroy', (body: UpstreamBody) => body.destroy()],
  ])('after %s', async (_, finish) => {
    const body = new UpstreamBody(source().src);
    const { r, events } = reader();
    body.read(r);
    body.push(b('a'));
    expect(readerOf(body)).toBe(r);
    finish(body);
    await new Promise((done) => queueMicrotask(() => done(undefined)));
    expect(events).toHaveLength(1);
    expect(readerOf(body)).toBeNull();
  });

  it('a reader that comes after the failure is told it and not kept', () => {
    const body = new UpstreamBody(source().src);
    body.fail(new Error('reset'));
    const { r, events } = reader();
    body.read(r);
    expect(events).toEqual(['error']);
    expect(readerOf(body)).toBeNull();
  });
});

describe('UpstreamBody read by a reader', () => {
  it('hands over what was queued, then what arrives, then the end, once', () => {
    const { src } = source();
    const body = new UpstreamBody(src);
    body.push(b('a'));
    body.push(b('b'));
    const { r, seen, events } = reader();
    body.read(r);
    expect(seen).toEqual(['a', 'b']);
    body.push(b('c'));
    body.end();
    body.end();
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['end']);
    expect(body.destroyed).toBe(true);
  });

  it('pauses the source while the reader is full and resumes it when drained', () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    const { r, seen, events } = reader((_c, i) => i === 0);
    body.read(r);
    body.push(b('a'));
    expect(calls).toEqual(['pause']);
    body.push(b('b'));
    body.end();
    expect(seen).toEqual(['a']);
    expect(events).toEqual([]);
    body.resume();
    expect(seen).toEqual(['a', 'b']);
    expect(events).toEqual(['end']);
    // Ended: the socket is not resumed for nothing.
    expect(calls).toEqual(['pause']);
  });

  it('pauses the source when the reader is full from what was queued before it came', () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    body.push(b('a'));
    const { r, seen } = reader((_c, i) => i === 0);
    body.read(r);
    expect(calls).toEqual(['pause']);
    body.push(b('b'));
    expect(seen).toEqual(['a']);
    expect(calls).toEqual(['pause']);
  });

  it('resumes the source after a pause once the queue is empty and the call still runs', () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    const { r } = reader((_c, i) => i === 0);
    body.read(r);
    body.push(b('a'));
    body.resume();
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('destroy() cancels the call and tells the reader after the chunk it is handling', async () => {
    const { src, calls, aborted } = source();
    const body = new UpstreamBody(src);
    const trip = new Error('tripped');
    const order: string[] = [];
    body.read({
      data: (chunk) => {
        body.destroy(trip);
        order.push(`data ${chunk}`);
        return true;
      },
      end: () => order.push('end'),
      error: (err) => order.push(`error ${err.message}`),
    });
    body.push(b('a'));
    body.push(b('b'));
    body.end();
    order.push('sync done');
    await Promise.resolve();
    expect(order).toEqual(['data a', 'sync done', 'error tripped']);
    expect(calls).toEqual(['abort']);
    expect(aborted()).toBe(trip);
    expect(body.destroyed).toBe(true);
  });

  it('destroy() after the end cancels nothing', () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    const { r, events } = reader();
    body.read(r);
    body.end();
    body.destroy();
    expect(calls).toEqual([]);
    expect(events).toEqual(['end']);
  });

  it('a failure of the call reaches the reader once; later chunks are dropped', () => {
    const body = new UpstreamBody(source().src);
    const { r, seen, events, errored } = reader();
    body.read(r);
    const err = new Error('reset');
    body.fail(err);
    body.fail(new Error('again'));
    body.push(b('late'));
    body.end();
    expect(seen).toEqual([]);
    expect(events).toEqual(['error']);
    expect(errored()).toBe(err);
  });

  it('a reader that throws destroys the body with its error', async () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    const boom = new Error('reader bug');
    let got: Error | null = null;
    body.read({
      data: () => {
        throw boom;
      },
      end: () => {},
      error: (err) => {
        got = err;
      },
    });
    body.push(b('a'));
    await Promise.resolve();
    expect(got).toBe(boom);
    expect(calls).toEqual(['abort']);
  });

  it('a failure before the reader came is reported when it comes', () => {
    const body = new UpstreamBody(source().src);
    body.push(b('a'));
    body.fail(new Error('reset'));
    const { r, seen, events } = reader();
    body.read(r);
    expect(seen).toEqual([]);
    expect(events).toEqual(['error']);
  });
});

describe('UpstreamBody read chunk by chunk', () => {
  it('next() waits for chunks, then gives null at the end', async () => {
    const body = new UpstreamBody(source().src);
    const first = body.next();
    body.push(b('a'));
    expect((await first)?.toString()).toBe('a');
    body.end();
    expect(await body.next()).toBeNull();
    expect(body.destroyed).toBe(true);
  });

  it('next() rejects with the failure', async () => {
    const body = new UpstreamBody(source().src);
    const pending = body.next();
    body.fail(new Error('reset'));
    await expect(pending).rejects.toThrow('reset');
  });

  it('pauses the source when 64 KB wait unread, and resumes it as they are read', async () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    body.push(Buffer.alloc(40 * 1024));
    expect(calls).toEqual([]);
    body.push(Buffer.alloc(40 * 1024));
    expect(calls).toEqual(['pause']);
    await body.next();
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('chunks put back after the end are read again, and the end is reported after them', async () => {
    const body = UpstreamBody.of([b('data: [DONE]')]);
    const peeked = await body.next();
    expect(await body.next()).toBeNull();
    body.unshift([peeked!]);
    expect(body.destroyed).toBe(false);
    const { r, seen, events } = reader();
    body.read(r);
    expect(seen).toEqual(['data: [DONE]']);
    expect(events).toEqual(['end']);
  });

  it('leaving an async iteration early cancels the call', async () => {
    const { src, calls } = source();
    const body = new UpstreamBody(src);
    body.push(b('a'));
    body.push(b('b'));
    for await (const chunk of body) {
      expect(chunk.toString()).toBe('a');
      break;
    }
    expect(calls).toContain('abort');
    expect(body.destroyed).toBe(true);
    await expect(body.next()).rejects.toBeInstanceOf(BodyDestroyedError);
  });
});

describe('UpstreamBody, for any arrival order and any reader pauses', () => {
  it('delivers every byte in order and ends exactly once', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), text: fc.string({ maxLength: 6 }) }),
      fc.record({ kind: fc.constant('resume' as const) }),
      fc.record({ kind: fc.constant('attach' as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.array(fc.boolean()), (steps, pauses) => {
        const { src } = source();
        const body = new UpstreamBody(src);
        const sent: string[] = [];
        const { r, seen, events } = reader(
          (_c, i) => pauses[i % Math.max(1, pauses.length)] ?? false,
        );
        let attached = false;
        const attach = () => {
          if (!attached) body.read(r);
          attached = true;
        };
        for (const s of steps) {
          if (s.kind === 'push') {
            sent.push(s.text);
            body.push(b(s.text));
          } else if (s.kind === 'resume') {
            if (attached) body.resume();
          } else attach();
        }
        body.end();
        attach();
        // The reader keeps asking for more until everything is through.
        for (let i = 0; i <= sent.length && events.length === 0; i++) body.resume();
        expect(seen.join('')).toBe(sent.join(''));
        expect(events).toEqual(['end']);
      }),
      { numRuns: 300 },
    );
  });
});
