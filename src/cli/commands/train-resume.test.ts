import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { devBin, runCli } from '../testing/run-cli.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../testing/timeouts.ts';

const args = (out: string) => [
  'train',
  '--env',
  'webshop',
  '--algo',
  'grpo',
  '--iterations',
  '6',
  '--tasks-per-iteration',
  '2',
  '--group-size',
  '4',
  '--train-tasks',
  '20',
  '--eval-every',
  '0',
  '--seed',
  '3',
  '--out',
  out,
];

const metrics = (dir: string) =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { iteration: number; rollout: unknown; update: unknown });

/** The iteration of the last complete checkpoint, or -1. */
function checkpointed(dir: string): number {
  const state = join(dir, 'checkpoint', 'state.json');
  if (!existsSync(state)) return -1;
  try {
    return (JSON.parse(readFileSync(state, 'utf8')) as { iteration: number }).iteration;
  } catch {
    return -1; // being written
  }
}

// In children, all three runs: a process killed mid-run is the point, and the weights compared
// bit for bit come from processes alike.
describe('dreamgym train --resume after a SIGKILL', () => {
  it('ends with the uninterrupted run’s weights, bit for bit, and one metrics line per iteration', {
    timeout: spawningTestTimeout(3),
  }, async () => {
    const straight = mkdtempSync(join(tmpdir(), 'dg-straight-'));
    expect((await runCli(args(straight))).code).toBe(0);

    const killed = mkdtempSync(join(tmpdir(), 'dg-killed-'));
    const child = spawn(process.execPath, [devBin, ...args(killed)], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let waited = 0; checkpointed(killed) < 2; waited += 20) {
      if (waited > 90_000) throw new Error('no checkpoint of iteration 2 within 90 s');
      await sleep(20);
    }
    child.kill('SIGKILL');
    await exited;
    expect(checkpointed(killed)).toBeLessThan(5);

    const resumed = await runCli([...args(killed), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(killed, 'checkpoint', 'policy.json'), 'utf8')).toBe(
      readFileSync(join(straight, 'checkpoint', 'policy.json'), 'utf8'),
    );
    const [a, b] = [metrics(straight), metrics(killed)];
    expect(b.map((m) => m.iteration)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(b.map((m) => [m.rollout, m.update])).toEqual(a.map((m) => [m.rollout, m.update]));
  });
});

describe('dreamgym train --resume with nothing to resume', () => {
  it('a mistyped --out is an error, not a fresh start', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'dg-typo-')), 'runs', 'grpo-typo');
    const r = await runCliInProcess([...args(missing), '--resume']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: --resume: there is no checkpoint to continue from in ${join(missing, 'checkpoint')}`,
    );
    expect(r.stdout).not.toContain('iter 1/');
    expect(existsSync(missing)).toBe(false);
  }, 60_000);
});
