import { InvalidArgumentError } from 'commander';

/** Commander parser for an integer option with bounds; the error names the option's rule. */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got "${value}".`);
    }
    return n;
  };
}

/** Commander parser for a probability in [0, 1]. */
export function probabilityOption(value: string): number {
  const x = Number(value);
  if (!(x >= 0 && x <= 1))
    throw new InvalidArgumentError(`expected a number from 0 to 1, got "${value}".`);
  return x;
}

/** Commander parser for a task split. */
export function splitOption(value: string): 'train' | 'test' {
  if (value !== 'train' && value !== 'test') {
    throw new InvalidArgumentError(`expected train or test, got "${value}".`);
  }
  return value;
}
