import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../core/types.ts';
import { encodeTrajectory } from '../../data/trajectory-format.ts';
import { getCatalog } from '../../envs/webshop/catalog.ts';
import { webshopTasks } from '../../envs/webshop/goals.ts';
import { makeWebShop } from '../../envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../../policy/experts/webshop-expert.ts';
import { collect } from '../../rl/collect.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

/** Webshop episodes of the expert with mistake rate `epsilon`, one per train task. */
async function expertEpisodes(episodes: number, epsilon: number): Promise<Trajectory[]> {
  const catalog = { seed: 0, size: 1000 };
  return collect({
    env: makeWebShop({ catalog }),
    policy: new WebShopExpert({ epsilon }),
    tasks: webshopTasks(catalog, getCatalog(catalog), 'train', episodes),
    episodes,
    seed: 1,
    provenance: 'real-offline',
  });
}

function writeJsonl(dir: string, name: string, trajectories: readonly Trajectory[]): string {
  const path = join(dir, name);
  writeFileSync(path, trajectories.map((t) => `${encodeTrajectory(t)}\n`).join(''));
  return path;
}

const dpoArgs = (data: string, out: string) => [
  'train',
  '--env',
  'webshop',
  '--algo',
  'dpo',
  '--data',
  data,
  '--eval-episodes',
  '5',
  '--epochs',
  '3',
  '--out',
  out,
];

describe('dreamgym train --algo dpo', () => {
  it('clones the data, trains DPO on its preference pairs and saves the policy', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-train-dpo-'));
    const data = writeJsonl(dir, 'offline.jsonl', await expertEpisodes(24, 0.3));
    const out = join(dir, 'run');
    const run = await runCliInProcess(dpoArgs(data, out));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/cloned \d+ decisions/);
    expect(run.stdout).toMatch(/DPO: \d+ pairs/);
    expect(run.stdout).toMatch(/held-out success [\d.]+%.* on 5 test tasks/);
    expect(existsSync(join(out, 'checkpoint', 'policy.json'))).toBe(true);
  });

  it('refuses data with no preference pair, naming how to get some, and writes nothing', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-train-dpo-'));
    // The mistake-free expert: every episode a success, and no action it would take otherwise.
    const data = writeJsonl(dir, 'expert.jsonl', await expertEpisodes(6, 0));
    const out = join(dir, 'run');
    const run = await runCliInProcess(dpoArgs(data, out));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*no preference pair/m);
    expect(run.stderr).toContain('--epsilon 0.3');
    expect(run.stderr).toContain('--algo bc');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, 'checkpoint'))).toBe(false);
  });

  it('says --resume has nothing to continue for dpo', async () => {
    const run = await runCliInProcess([
      ...dpoArgs('x.jsonl', join(tmpdir(), 'dg-none')),
      '--resume',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: --resume .*drop --resume/m);
  });
});
