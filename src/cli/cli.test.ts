import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrajectories } from '../data/trajectory-file.ts';
import { runCliInProcess } from './testing/run-cli-in-process.ts';

const dreamgym = (args: string[], stdin?: string) =>
  runCliInProcess(args, stdin === undefined ? {} : { stdin });

describe('dreamgym CLI', () => {
  it('collect writes valid trajectories and prints a summary', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dreamgym-cli-')), 'data', 'offline.jsonl');
    const run = await dreamgym([
      'collect',
      '--env',
      'webshop',
      '--policy',
      'expert',
      '--epsilon',
      '0.3',
      '--episodes',
      '12',
      '--seed',
      '1',
      '--out',
      out,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/episodes\s+12/);
    expect(run.stdout).toMatch(/success rate\s+\d+\.\d%/);
    expect(run.stdout).toContain(out);
    const trajectories = await readTrajectories(out);
    expect(trajectories).toHaveLength(12);
    expect(trajectories.every((t) => t.provenance === 'real-offline' && t.env === 'webshop')).toBe(
      true,
    );
    expect(trajectories[0]?.policyId).toBe('webshop-expert(eps=0.3)');
  });

  it('names the problem and the fix for bad options', async () => {
    const badEpsilon = await dreamgym([
      'collect',
      '--env',
      'webshop',
      '--epsilon',
      '2',
      '--out',
      '/tmp/never.jsonl',
    ]);
    expect(badEpsilon.code).not.toBe(0);
    expect(badEpsilon.stderr).toMatch(/--epsilon.*expected a number from 0 to 1/);
    const badEnv = await dreamgym(['collect', '--env', 'shop', '--out', '/tmp/never.jsonl']);
    expect(badEnv.code).not.toBe(0);
    expect(badEnv.stderr).toMatch(/unknown env "shop"; available: webshop/);
    const badPolicy = await dreamgym([
      'collect',
      '--env',
      'webshop',
      '--policy',
      'oracle',
      '--out',
      '/tmp/never.jsonl',
    ]);
    expect(badPolicy.stderr).toMatch(
      /"oracle" is neither a policy name \(expert, explorer, random, llm\) nor a folder with a saved policy/,
    );
    // The web table has no real-RL budget: such options are refused, not ignored (--seeds is taken).
    const webBudget = await dreamgym(['demo', '--env', 'web', '--seeds', '3', '--budget', '5000']);
    expect(webBudget.code).toBe(1);
    expect(webBudget.stderr).toContain('demo --env web does not use --budget (');
    expect(webBudget.stderr).toContain('drop it.');
    // The web ablation compares the curriculum with its absence: off against off is refused.
    const offAblation = await dreamgym([
      'demo',
      '--env',
      'web',
      '--ablations',
      '--web-curriculum',
      'off',
    ]);
    expect(offAblation.code).toBe(1);
    expect(offAblation.stderr).toContain('drop --web-curriculum off');
    const shopCurriculum = await dreamgym(['demo', '--web-curriculum', 'variance']);
    expect(shopCurriculum.code).toBe(1);
    expect(shopCurriculum.stderr).toContain('demo --env webshop does not use --web-curriculum');
    const badCurriculum = await dreamgym(['demo', '--env', 'web', '--web-curriculum', 'hardest']);
    expect(badCurriculum.code).not.toBe(0);
    expect(badCurriculum.stderr).toContain('unknown curriculum mode "hardest"; available: off');
  });

  it('play runs an episode from typed input', async () => {
    const run = await dreamgym(
      ['play', '--env', 'webshop', '--seed', '3'],
      'search[shoes]\n3\nclick[Buy Now]\n',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[Search]');
    expect(run.stdout).toMatch(/Page 1 \(Total results: \d+\)/);
    expect(run.stdout).toMatch(/episode terminated after 3 steps; reward \d\.\d{3}/);
  });
});
