import {
  applyFix,
  causeExcerpt,
  decideShapeRepair,
  fitRatio,
  isPromptTooLong,
  type LearntFix,
  readErrorText,
  readToolLimit,
  type ShapeFix,
  statedContextLimit,
  trimConversation,
} from '../../resilience/shape';
import { readBounded } from '../../upstream/attempt';
import type { UpstreamResponse } from '../../upstream/pools';
import { UpstreamBody } from '../../upstream/upstream-body';
import { bytesOf, type OutgoingBody } from '../../wire/body-pieces';
import type { Attempt, ShapeRefusal } from './attempt';
import type { ShapeDeps } from './deps';

type Json = Record<string, unknown>;

/** Sends one request body with these extra headers: the upstream call itself. */
export type SendBody = (
  body: OutgoingBody,
  extra: Readonly<Record<string, string>>,
) => Promise<UpstreamResponse>;

const ERROR_BODY_LIMIT = 64 * 1024;
/** Statuses a provider refuses a request's shape with (422: vLLM, Mistral and other validators). */
const SHAPE_STATUSES = new Set([400, 422]);

/**
 * The body as routing made it for an attempt: the client's bytes, or the translation, with the
 * model set.
 */
export type AttemptBody = (a: Attempt) => OutgoingBody;

/**
 * The upstream call of one attempt with the request-shape repairs (issue 17): the body goes out
 * with the fixes learnt for its provider and model; a 400 that a repair reads is answered by
 * sending the repaired body again, inside this one attempt and its time, before anything
 * reaches the client. Whatever answer comes last is handed on, so the subscription lane's limit
 * check (which wraps this) sees a limit 429 that arrives during a repair. One object per
 * attempt: a lane retry sends the body as repaired so far.
 */
export class ShapedSend {
  private bytes: OutgoingBody | null = null;
  private json: Json | null = null;
  /** Made by the first repair: most attempts have none. */
  private learnt: LearntFix[] | null = null;
  private count: { parameter: number; effort: number } | null = null;
  private trimmed = false;
  /** Why the last answer sent is a refusal worth failing over on, if it is one. */
  refusal: ShapeRefusal | null = null;

  constructor(
    private readonly a: Attempt,
    private readonly shape: ShapeDeps | undefined,
    /** Made inside, not captured: a frame that outlives the call keeps no copy of the body. */
    private readonly original: AttemptBody,
    private readonly sendBody: SendBody,
  ) {}

  /** Sends, and repairs what a repair reads, until an answer is handed on. */
  async send(extra: Readonly<Record<string, string>>): Promise<UpstreamResponse> {
    const res = await this.first(extra);
    return this.final(res) ? res : this.repair(res, extra);
  }

  /**
   * The first send of this call (`send` is `first`, then `repair` unless `final`): a caller
   * that awaits its own steps runs them without an async frame of this object's.
   */
  first(extra: Readonly<Record<string, string>>): Promise<UpstreamResponse> {
    this.bytes ??= this.withLearnt();
    this.refusal = null;
    return this.sendBody(this.bytes, extra);
  }

  /** Whether `res` is handed on as it came (no repair reads it); a success keeps what was learnt. */
  final(res: UpstreamResponse): boolean {
    if (this.shape && SHAPE_STATUSES.has(res.statusCode)) return false;
    if (res.statusCode < 400) this.remember();
    return true;
  }

  /** Reads a refusal that `final` did not pass, and sends again while a repair applies. */
  async repair(
    refused: UpstreamResponse,
    extra: Readonly<Record<string, string>>,
  ): Promise<UpstreamResponse> {
    const { a } = this;
    const shape = this.shape!;
    let res = refused;
    // Each pass reads one refusal; a repair sends again (the loop's step), and the answer is
    // looked at first (`refused` itself is not final, so the first look passes it on).
    for (; ; res = await this.sendBody(this.bytes!, extra)) {
      if (this.final(res)) return res;
      const raw = await readBounded(res.body, ERROR_BODY_LIMIT);
      const replay = {
        statusCode: res.statusCode,
        headers: res.headers,
        body: UpstreamBody.of([raw]),
      };
      if (a.cancel.aborted || a.ctx.now() >= a.startedAt + a.remaining) return replay;
      const error = readErrorText(raw.toString('utf8'));
      const settings = shape.settings();
      const maxTools = settings.toolLimit ? readToolLimit(error) : null;
      if (maxTools !== null) {
        const { target } = a.candidate;
        const cause = causeExcerpt(error.message);
        shape.repairs.rememberToolLimit(target.provider.id, target.model, maxTools, cause);
        this.refusal = { kind: 'tool_limit', max: maxTools, cause };
        return replay;
      }
      const body = this.body();
      if (isPromptTooLong(error)) {
        const trimmed =
          this.contextEditing(settings.contextEditing) && !this.trimmed
            ? trimConversation(body, fitRatio(error))
            : null;
        if (!trimmed) {
          this.refusal = {
            kind: 'prompt_too_long',
            limit: statedContextLimit(error),
            cause: causeExcerpt(error.message),
          };
          return replay;
        }
        this.trimmed = true;
        this.resend(trimmed.body, res.statusCode, error.message, {
          param: 'messages',
          mechanism: 'context',
          note: `removed ${trimmed.removed} oldest turn${trimmed.removed === 1 ? '' : 's'}`,
        });
        continue;
      }
      this.count ??= { parameter: 0, effort: 0 };
      const fix = decideShapeRepair(error, body, this.count, settings);
      const done = fix && applyFix(body, fix);
      if (!fix || !done) return replay;
      this.count[fix.mechanism === 'effort' ? 'effort' : 'parameter']++;
      const cause = this.resend(done.body, res.statusCode, error.message, {
        ...fix,
        note: done.note,
      });
      this.learnt ??= [];
      this.learnt.push({ fix, cause, learnedAt: a.ctx.now() });
    }
  }

  /** The next send carries `body`; the step, the event, and the cause excerpt it used. */
  private resend(
    body: Json,
    status: number,
    message: string,
    change: Pick<ShapeFix, 'param' | 'mechanism'> & { note: string },
  ): string {
    const { a, shape } = this;
    this.json = body;
    this.bytes = Buffer.from(JSON.stringify(body));
    const cause = causeExcerpt(message);
    a.ctx.steps.push(
      `${a.label} refused the request's shape (HTTP ${status}: ${cause.slice(0, 100)}); ${change.note}, sent again`,
    );
    shape?.repairs.repaired(
      {
        provider: a.candidate.target.provider.id,
        connection: a.candidate.connection.id,
        model: a.candidate.target.model,
        change: change.note,
        cause,
      },
      change,
    );
    return cause;
  }

  /** Context editing for this request: its combo's own choice, else the global setting. */
  private contextEditing(global: boolean): boolean {
    return this.a.ctx.combo?.options?.contextEditing ?? global;
  }

  /** The body to send first: with the learnt fixes when there are any, else as routing made it. */
  private withLearnt(): OutgoingBody {
    const { a, shape } = this;
    const provider = a.candidate.target.provider.id;
    const model = a.candidate.target.model;
    if (!shape?.repairs.knows(provider, model)) return this.original(a);
    const applied = shape.repairs.apply(provider, model, this.originalJson(), shape.settings());
    if (!applied) return this.original(a);
    this.json = applied.body;
    a.ctx.steps.push(`${a.label} sent with learnt fixes: ${applied.notes.join(', ')}`);
    return Buffer.from(JSON.stringify(applied.body));
  }

  private body(): Json {
    this.json ??= this.originalJson();
    return this.json;
  }

  /**
   * The shape repairs' body surgery works on the bytes that would be sent, parsed again: only a
   * refused request or a model with learnt fixes pays for it.
   */
  private originalJson(): Json {
    return JSON.parse(bytesOf(this.original(this.a)).toString('utf8')) as Json;
  }

  private remember(): void {
    if (this.learnt === null || this.learnt.length === 0 || !this.shape) return;
    const { target } = this.a.candidate;
    this.shape.repairs.remember(target.provider.id, target.model, this.learnt.splice(0));
  }
}
