import type { ComboConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { array, ID_PATTERN, object, oneOf, string } from './values';

const STRATEGIES: readonly ComboConfig['strategy'][] = ['priority'];

/** `provider/model` or `provider/model@connection`. */
export interface TargetRef {
  provider: string;
  model: string;
  connection: string | null;
}

export function parseTargetRef(target: string): TargetRef | null {
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) return null;
  const provider = target.slice(0, slash);
  let model = target.slice(slash + 1);
  let connection: string | null = null;
  const at = model.lastIndexOf('@');
  if (at > 0) {
    connection = model.slice(at + 1);
    model = model.slice(0, at);
    if (!ID_PATTERN.test(connection)) return null;
  }
  if (!ID_PATTERN.test(provider) || model.length === 0) return null;
  return { provider, model, connection };
}

export function validateCombo(value: unknown, field: string): ComboConfig {
  const o = object(value, field, ['name', 'strategy', 'targets']);
  const name = string(o.name, `${field}.name`, {
    pattern: /^[^\s/]{1,128}$/,
    hint: 'must be 1-128 characters without spaces or "/"',
  });
  const targets = array(o.targets, `${field}.targets`).map((t, i) => {
    const target = string(t, `${field}.targets[${i}]`);
    if (!parseTargetRef(target)) {
      throw new ValidationError(
        `${field}.targets[${i}]`,
        'must be "provider/model" or "provider/model@connection"',
      );
    }
    return target;
  });
  if (targets.length === 0) throw new ValidationError(`${field}.targets`, 'must not be empty');
  return {
    name,
    strategy: oneOf(o.strategy ?? 'priority', `${field}.strategy`, STRATEGIES),
    targets,
  };
}
