import { readFileSync } from 'node:fs';
import type { BreakwaterConfig } from '../../../shared/contract';
import { ValidationError, validateConfig } from './validate';

/** Reads and validates a config file; every failure names the file and, where known, the field. */
export function loadConfigFile(file: string): BreakwaterConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot read config file ${file}: ${code === 'ENOENT' ? 'no such file' : String(err)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return validateConfig(json);
  } catch (err) {
    if (err instanceof ValidationError) {
      throw new Error(`config file ${file}: ${err.field}: ${err.reason}`);
    }
    throw err;
  }
}
