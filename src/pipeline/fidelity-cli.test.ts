import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/testing/run-cli.ts';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { initTf } from '../core/tf.ts';
import { isSuccess, type Step, type Trajectory } from '../core/types.ts';
import { generatedTask } from '../curriculum/task-identity.ts';
import { TrajectoryWriter } from '../data/trajectory-file.ts';
import { findChromium } from '../envs/web/browser/chromium.ts';
import { browserLeftovers, browserTmpDir } from '../envs/web/testing/browser-leftovers.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { relabel, webshopTrajectories } from '../replay/testing/fixtures.ts';

describe('dreamgym fidelity', () => {
  beforeAll(initTf);

  it('compares household envs free-running with the explorer, which sees only what agents see', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-'));
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      'household',
      '--episodes',
      '6',
      '--offline-episodes',
      '30',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const report = readFileSync(join(out, 'fidelity.md'), 'utf8');
    expect(report).toContain('## Free-running (household-explorer(eps=0.3)');
    const json = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8'));
    expect(json.freeRunning.episodes).toBe(6);
    // The explorer can play both envs (the scene-reading expert could not play a synthetic room).
    expect(json.freeRunning.real.successRate).toBeGreaterThan(0);
    expect(json.freeRunning.synthetic.successRate).toBeGreaterThan(0);
    expect(json.teacherForced.transitions).toBeGreaterThan(6);
    // The synthetic episodes replayed in the real env: every one, its successes checked there.
    const { replayed } = json.freeRunning;
    expect(replayed.episodes).toBe(6);
    expect(replayed.syntheticSuccesses).toBe(
      Math.round(6 * json.freeRunning.synthetic.successRate),
    );
    expect(replayed.confirmed).toBeLessThanOrEqual(replayed.syntheticSuccesses);
    // Household tasks have no kinds to break the replay down by.
    expect(replayed.byKind).toBeUndefined();
    expect(report).toContain("## Replayed (the synthetic episodes' actions");
  }, 60_000);

  it('plays a saved policy when --free-policy names its folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-policy-'));
    await new ChoicePolicy({ seed: 1 }).save(dir);
    const out = join(dir, 'report');
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      'webshop',
      '--episodes',
      '4',
      '--offline-episodes',
      '10',
      '--free-policy',
      dir,
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    expect(readFileSync(join(out, 'fidelity.md'), 'utf8')).toMatch(/## Free-running \(choice/);
    expect(
      JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8')).freeRunning.replayed.episodes,
    ).toBe(4);
  }, 60_000);

  it('plays the free-running expert at its own mistake rate (--free-epsilon), the data at --epsilon', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-epsilon-'));
    const run = await runCliInProcess([
      'fidelity',
      ...['--env', 'webshop', '--episodes', '3', '--offline-episodes', '10'],
      ...['--free-policy', 'expert', '--free-epsilon', '0.7', '--out', out],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = readFileSync(join(out, 'fidelity.md'), 'utf8');
    expect(report).toContain('Offline data: 10 episodes (webshop-expert(eps=0.3))');
    expect(report).toContain('## Free-running (webshop-expert(eps=0.7)');
  }, 60_000);

  it('replays recorded episodes (--free-data): their successes checked in the real env', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-recorded-'));
    // Real expert episodes stand in for what a served synthetic env recorded: two successes its
    // actions earn for real, one failure the recording env paid as a success, one on a task the
    // LLM task generator wrote (no spec: the real env cannot build it) and one on an offline
    // mutator's variation (a spec the real env builds: it is replayed).
    const real = relabel(await webshopTrajectories(12, 3), 'synthetic', 'served');
    const successes = real.filter(isSuccess).slice(0, 2);
    const failure = real.find((t) => !isSuccess(t) && t.steps.at(-1)?.terminated) as Trajectory;
    const paid = (t: Trajectory): Trajectory => ({
      ...t,
      steps: [...t.steps.slice(0, -1), { ...(t.steps.at(-1) as Step), reward: 1 }],
    });
    const generated: Trajectory = {
      ...paid(successes[0] as Trajectory),
      id: 'served-generated',
      task: { id: 'gen-1', env: 'webshop', instruction: 'a harder variation', origin: 'generated' },
    };
    const first = successes[0] as Trajectory;
    const varied: Trajectory = {
      ...first,
      id: 'served-varied',
      task: generatedTask(first.task, 'the same purchase, worded anew', first.task.spec),
    };
    expect(successes).toHaveLength(2);
    const file = join(dir, 'served.jsonl');
    const writer = await TrajectoryWriter.open(file);
    for (const t of [...successes, paid(failure), generated, varied]) await writer.write(t);
    await writer.close();
    const out = join(dir, 'report');
    const run = await runCliInProcess([
      'fidelity',
      ...['--env', 'webshop', '--episodes', '2', '--offline-episodes', '10'],
      ...['--free-data', file, '--out', out],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8'));
    expect(json.freeRunning).toBeUndefined();
    expect(json.recordedEpisodes.episodes).toBe(5);
    expect(json.recordedEpisodes.recorded.successRate).toBe(1);
    expect(json.recordedEpisodes.replayed).toMatchObject({
      episodes: 4,
      syntheticSuccesses: 4,
      confirmed: 3,
      missed: 0,
      generated: 1,
      unreplayable: 1,
    });
    expect(json.recordedEpisodes.replayed.falsePositiveShare).toBeCloseTo(1 / 4);
    const report = readFileSync(join(out, 'fidelity.md'), 'utf8');
    expect(report).toContain(`## Recorded episodes (${file})`);
    expect(report).toMatch(/\| all \| 4 \| 4 \| 3 \| 25\.0% \| 0 \|/);
    expect(report).toContain(
      '1 of the 4 episodes replayed are on tasks the curriculum generated (variations with a spec the real env builds).',
    );
    expect(report).toContain(
      'Not replayed: 1 episodes whose task the real env cannot build (tasks the LLM task generator wrote have no spec).',
    );

    // A file of another env's episodes is refused before any work, with the fix.
    const wrong = await runCliInProcess(['fidelity', '--env', 'household', '--free-data', file]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/holds no household episodes \(it has webshop\): pass the --env/);
  }, 90_000);

  // In a child: that the process exits with its browser gone is the point.
  it('measures a web site in the browser and exits, its browser closed', {
    timeout: spawningTestTimeout(1),
  }, async () => {
    findChromium();
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-web-'));
    const browserTmp = browserTmpDir();
    const run = await runCli(
      [
        'fidelity',
        '--env',
        'web:forum',
        '--episodes',
        '3',
        '--offline-episodes',
        '4',
        '--out',
        out,
      ],
      { env: { TMPDIR: browserTmp } },
    );
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8'));
    expect(json.freeRunning.replayed.episodes).toBe(3);
    // Web tasks are broken down by WebArena's kind of task.
    const kinds = Object.keys(json.freeRunning.replayed.byKind);
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds) expect(['information', 'navigation', 'change']).toContain(kind);
    expect(browserLeftovers(browserTmp)).toEqual({ processes: [], profiles: [] });
  });

  it('names the policies that can play an env when asked for one that cannot', async () => {
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      'webshop',
      '--free-policy',
      'explorer',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/explorer policy plays household envs.*use expert, random or llm/);
  });
});
