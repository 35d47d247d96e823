import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  createStreamWriter,
  customToolsOf,
  emitResponse,
  requestEcho,
  type WriterOptions,
} from '../../translate';
import type { IrRequest, IrResponse, StreamWriter } from '../../translate/ir';
import { responseEvents } from '../../translate/stream';
import type { Shown } from '../../websearch/emulate';
import { shownIn, wholeAnswer } from '../../websearch/render';
import type { GatewayError } from '../../wire/client-errors';
import { headerValue } from '../../wire/header-value';
import { keepAliveEvent } from '../../wire/keep-alive';
import type { RequestContext } from './context';
import { ANSWERED, type Decision, reply } from './decision';

/** The client's answer: streamed as the searches happen, or whole at the end. */
export class SearchAnswer {
  private writer: StreamWriter | null = null;
  private readonly opts: WriterOptions;
  /** The answer's id and model are the client's, whichever call wrote it. */
  private readonly id: string;

  constructor(
    private readonly ctx: RequestContext,
    ir: IrRequest,
    body: Record<string, unknown>,
  ) {
    this.id = messageId(ctx);
    const echo = requestEcho(ctx.endpoint.format, body);
    this.opts = {
      nowMs: ctx.started,
      now: ctx.now,
      includeUsage: false,
      customTools: customToolsOf(ir),
      ...(echo ? { echo } : {}),
    };
  }

  /**
   * While a streaming client waits on the model, the head and a keep-alive in its format go out
   * every `everyMs`, so neither it nor a proxy in between gives up; answers the stop.
   */
  keepAlive(everyMs: number): () => void {
    if (!this.ctx.stream) return () => {};
    const timer = setInterval(() => {
      if (this.ctx.clientGone) return;
      this.streamWriter();
      this.write(keepAliveEvent(this.ctx.endpoint.format));
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  shown(item: Shown): void {
    if (!this.ctx.stream || this.ctx.clientGone || !shownIn(this.ctx.endpoint.format, item)) return;
    this.write(this.streamWriter().write(item));
  }

  fail(error: GatewayError): Decision {
    if (!this.writer) return reply(error);
    const { ctx } = this;
    ctx.status = error.status;
    ctx.errorClass = error.code;
    ctx.errorMessage = error.message;
    this.write(this.writer.write({ type: 'error', error }));
    ctx.res.end();
    return ANSWERED;
  }

  finish(answer: IrResponse, shown: Shown[]): void {
    const { ctx } = this;
    const final = { ...answer, id: this.id, model: ctx.model };
    ctx.status = 200;
    if (ctx.stream) {
      const w = this.streamWriter();
      let s = '';
      for (const ev of responseEvents(final)) s += w.write(ev);
      this.write(s + w.finish());
      ctx.res.end();
      return;
    }
    const format = ctx.endpoint.format;
    const whole = wholeAnswer(format, final, shown, (ir) => emitResponse(format, ir, this.opts));
    const text = JSON.stringify(whole);
    head(ctx, ctx.res, 'application/json');
    ctx.res.end(text);
    ctx.bytesOut += Buffer.byteLength(text);
  }

  private streamWriter(): StreamWriter {
    if (this.writer) return this.writer;
    const { ctx } = this;
    this.writer = createStreamWriter(ctx.endpoint.format, this.opts);
    head(ctx, ctx.res, 'text/event-stream; charset=utf-8');
    this.write(this.writer.write({ type: 'start', id: this.id, model: ctx.model, usage: null }));
    return this.writer;
  }

  private write(s: string): void {
    if (s === '' || this.ctx.clientGone) return;
    this.ctx.res.write(s);
    this.ctx.bytesOut += Buffer.byteLength(s);
  }
}

function messageId(ctx: RequestContext): string {
  const hex = randomBytes(12).toString('hex');
  const format = ctx.endpoint.format;
  return format === 'anthropic' ? `msg_${hex}` : format === 'gemini' ? hex : `resp_${hex}`;
}

function head(ctx: RequestContext, res: ServerResponse, type: string): void {
  ctx.ttfb ??= ctx.now() - ctx.started;
  res.writeHead(200, {
    'content-type': type,
    'cache-control': 'no-cache',
    'x-breakwater-decision': headerValue(ctx.steps.join('; ')),
    'x-breakwater-web-search': 'gateway',
    ...(ctx.served ? { 'x-breakwater-connection': headerValue(ctx.served.connection.id) } : {}),
  });
}
