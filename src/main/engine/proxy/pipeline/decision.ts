import type { GatewayError } from '../../wire/client-errors';

/**
 * What a stage answers. `continue` hands the request to the next stage; `skip` passes over the
 * candidate at hand (attempt stages only) and says why and when it may serve again; `reply`
 * ends the request with an error in the client's format; `answered` means the stage wrote the
 * answer itself (a model list, a token estimate). Decisions are values, never exceptions.
 */
export type Decision = Continue | Answered | Skip | Reply;

export interface Continue {
  readonly kind: 'continue';
}

export interface Answered {
  readonly kind: 'answered';
}

export interface Skip {
  readonly kind: 'skip';
  /** The reason code in `diagnostics.excluded` and the decision header. */
  readonly reason: string;
  readonly retryAfterMs: number | null;
  /** For the debug log. */
  readonly detail: string;
  /** For a cooling connection: the error type that cooled it (only rate limits are waited for). */
  readonly errorType: string | null;
  /** Null when the stage already put the skip in the steps, in its own words. */
  readonly step?: null;
}

export interface Reply {
  readonly kind: 'reply';
  readonly error: GatewayError;
}

// Shared constants: the common answers allocate nothing.
export const CONTINUE: Continue = Object.freeze({ kind: 'continue' });
export const ANSWERED: Answered = Object.freeze({ kind: 'answered' });

export function reply(error: GatewayError): Reply {
  return { kind: 'reply', error };
}

export function skip(
  reason: string,
  retryAfterMs: number | null,
  detail: string,
  errorType: string | null = null,
): Skip {
  return { kind: 'skip', reason, retryAfterMs, detail, errorType };
}

/** A 400 `invalid_request` in the client's format. */
export function invalid(code: string, message: string, param?: string): Reply {
  return reply({
    status: 400,
    kind: 'invalid_request',
    code,
    message,
    ...(param ? { param } : {}),
  });
}
