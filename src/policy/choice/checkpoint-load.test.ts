import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { initTf } from '../../core/tf.ts';
import { ChoicePolicy } from './choice-policy.ts';

beforeAll(async () => {
  await initTf();
});

/** A saved policy whose policy.json `edit` changes. */
async function saved(
  edit: (json: { weights: Record<string, { shape: number[]; values: unknown[] }> }) => void,
) {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-policy-'));
  await new ChoicePolicy({ seed: 1 }).save(dir);
  const file = join(dir, 'policy.json');
  const json = JSON.parse(readFileSync(file, 'utf8'));
  edit(json);
  writeFileSync(file, JSON.stringify(json));
  return dir;
}

describe('ChoicePolicy.load refuses a broken checkpoint with a clear error', () => {
  it('a weight of another shape, a short weight, a non-finite value, no weights', async () => {
    const cases = [
      (j: Parameters<Parameters<typeof saved>[0]>[0]) => {
        const [name] = Object.keys(j.weights);
        (j.weights[name as string] as { shape: number[] }).shape = [3, 3];
      },
      (j: Parameters<Parameters<typeof saved>[0]>[0]) => {
        const w = Object.values(j.weights)[0] as { values: unknown[] };
        w.values = w.values.slice(1);
      },
      (j: Parameters<Parameters<typeof saved>[0]>[0]) => {
        const w = Object.values(j.weights)[0] as { values: unknown[] };
        w.values[0] = null; // JSON has no Infinity: it arrives as null
      },
      (j: Parameters<Parameters<typeof saved>[0]>[0]) => {
        (j as { weights?: unknown }).weights = undefined;
      },
    ];
    for (const edit of cases) {
      const dir = await saved(edit);
      const error = await ChoicePolicy.load(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(join(dir, 'policy.json'));
      expect((error as Error).message).toMatch(/does not hold this policy's weights/);
    }
  });

  it('loads an intact one', async () => {
    const dir = await saved(() => {});
    const policy = await ChoicePolicy.load(dir);
    expect(policy.id).toContain('seed=1');
    policy.dispose();
  });
});
