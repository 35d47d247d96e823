import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Where an internal call's answer goes instead of a client socket (fusion's panel, a pipeline's
 * first steps, context-relay's summarizer): the dispatch, relay and error answers write into it
 * exactly as they would to a client, and the orchestration reads the answer back. It has the
 * part of `ServerResponse` those writers use, nothing more; it never pushes back.
 */
export class CapturedResponse extends EventEmitter {
  statusCode = 0;
  headersSent = false;
  writableFinished = false;
  private readonly chunks: Buffer[] = [];

  /** Closed (as a client going away) when `parent` closes before it finished. */
  constructor(parent: ServerResponse) {
    super();
    const gone = () => {
      if (!parent.writableFinished && !this.writableFinished) this.emit('close');
    };
    parent.once('close', gone);
    this.once('finish', () => parent.off('close', gone));
  }

  writeHead(status: number, _headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  setHeader(): this {
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  write(chunk: string | Buffer): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    if (!this.writableFinished) {
      this.writableFinished = true;
      this.emit('finish');
    }
    return this;
  }

  /** A broken answer: nothing more comes. */
  destroy(): this {
    this.end();
    return this;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  /** For the writers, which take a `ServerResponse`: this has every member they use. */
  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
