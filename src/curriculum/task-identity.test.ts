import { describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { householdTask } from '../envs/household/tasks.ts';
import { isRealizable } from './realizable.ts';
import { generatedTask, normalizeInstruction, taskIdentity } from './task-identity.ts';

const seed = (instruction: string, spec?: Record<string, unknown>): Task => ({
  id: 'seed/1',
  env: 'webshop',
  instruction,
  origin: 'seed',
  ...(spec && { spec }),
});

describe('task identity', () => {
  it('normalises case, punctuation and spacing, keeping numbers', () => {
    expect(normalizeInstruction('  Put a HOT apple in\tcountertop. ')).toBe(
      'put a hot apple in countertop',
    );
    expect(normalizeInstruction('under 40.00 dollars!')).toBe('under 40.00 dollars');
  });

  it('a spec task is its spec: wording, key order and attribute order do not count', () => {
    const a = seed('i want a red mug, and price lower than 20.00 dollars', {
      catalog: { seed: 0, size: 10 },
      goal: { asin: 'B0X', attributes: ['a', 'b'], priceUpper: 20, instruction: 'one wording' },
    });
    const b = seed('find me a red mug under 20.00 dollars', {
      goal: { priceUpper: 20, instruction: 'another', attributes: ['b', 'a'], asin: 'B0X' },
      catalog: { size: 10, seed: 0 },
    });
    expect(taskIdentity(a)).toBe(taskIdentity(b));
    const c = seed('x', { catalog: { seed: 0, size: 10 }, goal: { asin: 'B0X', priceUpper: 30 } });
    expect(taskIdentity(c)).not.toBe(taskIdentity(a));
  });

  it('a task without a spec is its normalised words', () => {
    expect(taskIdentity(seed('Find me a RED mug.'))).toBe(taskIdentity(seed('find me a red mug')));
    expect(taskIdentity(seed('find me a red mug'))).not.toBe(taskIdentity(seed('find me a mug')));
  });

  it('generated ids come from the identity, so the same task gets the same id', () => {
    const parent = seed('find me a red mug');
    const one = generatedTask(parent, 'Find me a BLUE mug.');
    expect(one).toMatchObject({ env: 'webshop', origin: 'generated', parentId: 'seed/1' });
    expect(one.spec).toBeUndefined();
    expect(one.id).toMatch(/^webshop\/gen\/[0-9a-f]{12}$/);
    expect(generatedTask(parent, 'find me a blue mug').id).toBe(one.id);
    expect(generatedTask(parent, 'find me a green mug').id).not.toBe(one.id);
  });
});

describe('isRealizable', () => {
  it('needs a spec the env accepts; unknown envs are trusted with any spec', () => {
    expect(isRealizable(householdTask(500))).toBe(true);
    expect(isRealizable({ ...householdTask(500), spec: undefined })).toBe(false);
    expect(
      isRealizable({ ...householdTask(500), spec: { scene: { room: 'kitchen', seed: 1 } } }),
    ).toBe(false);
    expect(isRealizable(seed('x', { catalog: { seed: 0, size: 10 } }))).toBe(false);
    expect(isRealizable({ ...seed('x', { index: 3 }), env: 'agentgym-webshop' })).toBe(true);
  });
});
