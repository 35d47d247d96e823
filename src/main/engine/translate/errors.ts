// IR errors to and from the gateway's error shapes, for all three adapters.
import { type ErrorKind, type GatewayError, kindForStatus } from '../wire/client-errors';
import { type IrError, type Json, str } from './ir';

/** An IR error as the gateway error the client-format error bodies are built from. */
export function gatewayErrorOf(e: IrError): GatewayError {
  return { status: e.status, kind: e.kind as ErrorKind, code: e.code, message: e.message };
}

/** An OpenAI error object (`{message, type, code, param}`) as an IR error. */
export function openAiErrorOf(status: number, err: Json | null): IrError | null {
  if (!err || typeof err.message !== 'string') return null;
  return {
    status,
    kind: kindForStatus(status),
    code: str(err.code) ?? str(err.type) ?? 'upstream_error',
    message: err.message,
  };
}

/** The error for an upstream stream error event whose body could not be read. */
export function unreadableStreamError(code: string): IrError {
  return { status: 500, kind: 'upstream', code, message: 'upstream stream error' };
}
