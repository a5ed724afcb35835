import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

const lampsModule = join(import.meta.dirname, '../../envs/testing/lamps-module.ts');

/**
 * The lamps test env with 6 tasks per split, as a user's module: an env with fewer train tasks
 * than fidelity's default 500 offline episodes.
 */
function fewLampsModule(dir: string): string {
  const path = join(dir, 'few-lamps.ts');
  writeFileSync(
    path,
    `import lamps from ${JSON.stringify(lampsModule)};
const all = lamps.tasks({});
export default {
  ...lamps,
  tasks: () => ({ tasks: (split, count = 6) => all.tasks(split, Math.min(count, 6)) }),
};
`,
  );
  return path;
}

async function collectSplit(env: string, split: string, out: string): Promise<void> {
  const run = await runCliInProcess([
    'collect',
    '--env',
    env,
    '--split',
    split,
    '--epsilon',
    '0.3',
    '--episodes',
    '6',
    '--out',
    out,
  ]);
  expect(run.code, run.stderr).toBe(0);
}

describe('dreamgym fidelity --data on an env with few train tasks', () => {
  // One module for the file: a module env stays registered under its name in this process.
  const env = fewLampsModule(mkdtempSync(join(tmpdir(), 'dg-fidelity-module-')));

  it('holds out tasks the data does not use (the test split when it uses every train task)', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-fidelity-few-'));
    const data = join(dir, 'train.jsonl');
    await collectSplit(env, 'train', data);
    const out = join(dir, 'fid');
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      env,
      '--data',
      data,
      '--episodes',
      '4',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = readFileSync(join(out, 'fidelity.md'), 'utf8');
    expect(report).toMatch(/Held-out: 4 real episodes .* on tasks the offline data never saw/);
    expect(report).toContain('test split');
    const forced = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8')).teacherForced;
    expect(forced.transitions).toBeGreaterThan(0);
  });

  it('refuses data that uses every task of both splits, naming the fix, without a stack trace', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-fidelity-few-'));
    const data = join(dir, 'all.jsonl');
    await collectSplit(env, 'train', data);
    const test = join(dir, 'test.jsonl');
    await collectSplit(env, 'test', test);
    appendFileSync(data, readFileSync(test));
    const out = join(dir, 'fid');
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      env,
      '--data',
      data,
      '--episodes',
      '4',
      '--out',
      out,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*no task left to hold out/m);
    expect(run.stderr).toMatch(/fewer tasks/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
