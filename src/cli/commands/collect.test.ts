/**
 * `dreamgym collect` on small task sets and bad output paths: episodes past the split's tasks
 * cycle through them, and an output that cannot be written is refused before any episode.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { runCli } from '../testing/run-cli.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../testing/timeouts.ts';

const lamps = join(import.meta.dirname, '../../envs/testing/lamps-module.ts');

/** An env module of two tasks that refuses a third, as a small WebArena or MCP config does. */
function twoTaskModule(dir: string): string {
  const file = join(dir, 'two-lamps.ts');
  writeFileSync(
    file,
    `import lamps from ${JSON.stringify(lamps)};
const source = lamps.tasks({});
export default {
  ...lamps,
  tasks: () => ({
    tasks: (split, count = 2) => {
      if (count > 2) throw new Error(\`the \${split} split has 2 tasks; asked for \${count}.\`);
      return source.tasks(split, count);
    },
  }),
};
`,
  );
  return file;
}

const errors = join(import.meta.dirname, '../../core/errors.ts');

/**
 * An env module, family `name`, whose server "dies" at reset number `failAt` (1-based): every
 * reset from then on throws, as an MCP or OpenEnv env does once its server has gone.
 */
function failingModule(dir: string, name: string, failAt: number): string {
  const file = join(dir, `${name}.ts`);
  writeFileSync(
    file,
    `import lamps from ${JSON.stringify(lamps)};
import { DreamGymError } from ${JSON.stringify(errors)};
class ServerGone extends DreamGymError {}
const base = lamps.tasks({});
const retag = (t) => ({ ...t, env: ${JSON.stringify(name)} });
export default {
  ...lamps,
  name: ${JSON.stringify(name)},
  tasks: () => ({ tasks: (split, count) => base.tasks(split, count).map(retag) }),
  make: (o) => {
    const env = lamps.make(o);
    let resets = 0;
    return {
      name: ${JSON.stringify(name)},
      reset: async (r) => {
        resets += 1;
        if (resets >= ${failAt}) throw new ServerGone('the test server died (reset ' + resets + ')');
        const result = await env.reset({ ...r, task: r.task && { ...r.task, env: 'lamps' } });
        return { ...result, info: { ...result.info, task: retag(result.info.task) } };
      },
      step: (a) => env.step(a),
      close: () => env.close(),
    };
  },
};
`,
  );
  return file;
}

const episodes = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { task: { id: string } });

describe('dreamgym collect', () => {
  it('--episodes past the tasks of the split cycles through them, seeded, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-collect-'));
    const env = twoTaskModule(dir);
    const run = (out: string, seed: string) =>
      runCliInProcess(['collect', '--env', env, '--episodes', '5', '--seed', seed, '--out', out]);
    const first = await run(join(dir, 'a.jsonl'), '3');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'the train split has 2 tasks: 5 episodes cycle through them, 2–3 per task, each pass in an order fixed by --seed',
    );
    expect(first.stdout).toMatch(/episodes\s+5 \(train split, 2 distinct tasks\)/);
    const ids = episodes(join(dir, 'a.jsonl')).map((e) => e.task.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids.slice(0, 2)).size).toBe(2);
    expect(new Set(ids.slice(2, 4)).size).toBe(2);
    const again = await run(join(dir, 'b.jsonl'), '3');
    expect(episodes(join(dir, 'b.jsonl')).map((e) => e.task.id)).toEqual(ids);
    expect(again.code).toBe(0);
  }, 120_000);

  it('keeps the episodes that finished before the env failed, in both outputs, and says how many', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-collect-'));
    const env = failingModule(dir, 'lamps-dying', 3);
    const [out, db] = [join(dir, 'k.jsonl'), join(dir, 'k.db')];
    const r = await runCliInProcess([
      'collect',
      '--env',
      env,
      '--episodes',
      '20',
      '--out',
      out,
      '--db',
      db,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `collect stopped after 2 of 20 episodes: the 2 finished are in ${out} and ${db}.`,
    );
    expect(r.stderr).toContain('error: the test server died (reset 3)');
    expect(episodes(out)).toHaveLength(2);
    expect(existsSync(`${out}.partial`)).toBe(false);
    const buffer = await ReplayBuffer.open({ path: db });
    try {
      expect((await buffer.trajectoryIds()).length).toBe(2);
    } finally {
      await buffer.close();
    }
  }, 120_000);

  it('leaves no new database and no file when the env fails before the first episode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-collect-'));
    const env = failingModule(dir, 'lamps-dead', 1);
    const only = await runCliInProcess([
      'collect',
      '--env',
      env,
      '--episodes',
      '3',
      '--db',
      join(dir, 'new.db'),
    ]);
    expect(only.code).toBe(1);
    expect(only.stderr).toContain(
      'collect stopped before any episode finished: nothing was written.',
    );
    const both = await runCliInProcess([
      'collect',
      '--env',
      env,
      '--episodes',
      '3',
      '--out',
      join(dir, 'o.jsonl'),
      '--db',
      join(dir, 'o.db'),
    ]);
    expect(both.code).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['lamps-dead.ts']);
  }, 120_000);

  it('--max-observation-chars holds any env to the limit, recorded clipped, said so in info', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-collect-'));
    const env = failingModule(dir, 'lamps-long', 1_000);
    const out = join(dir, 'o.jsonl');
    const run = await runCliInProcess([
      'collect',
      '--env',
      env,
      '--episodes',
      '1',
      '--max-observation-chars',
      '12',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const [episode] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const first = episode.steps[0];
    expect(first.observation.text).toMatch(
      /^.{12}\n\[clipped: the first 12 of [\d,]+ characters\]$/,
    );
    expect(first.info.clipped).toMatch(
      /^the observation \([\d,]+ characters\) was over the limit of 12 characters \(--max-observation-chars\)/,
    );
  }, 120_000);

  // In a child: the env module it loads would clash, in this process, with the first test's
  // module of the same env name.
  it('refuses an --out that is a directory before playing, leaving nothing behind', {
    timeout: spawningTestTimeout(1),
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-collect-'));
    const out = join(dir, 'data');
    mkdirSync(out);
    const r = await runCli(['collect', '--env', lamps, '--episodes', '3', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: ${out} is a directory; give a file to write the trajectories to, e.g. ${join(out, 'episodes.jsonl')}`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).not.toContain('success rate');
    expect(readdirSync(dir)).toEqual(['data']);
  });
});
