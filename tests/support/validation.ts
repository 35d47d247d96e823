import { ValidationError } from '../../src/main/engine/config/validate';

/** Runs `fn`, which must throw a ValidationError, and returns it. */
export function rejection(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError, but the input was accepted');
}
