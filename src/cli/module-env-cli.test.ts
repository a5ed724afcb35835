/**
 * A user's env module through the CLI, as a user names it: `--env ./lamps-module.ts` in collect,
 * eval, fidelity and quality, `env:` in a run config, `serve --env synthetic:./…`; no scripted
 * expert needed where the command does not truly need one.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServeChildren } from '../server/testing/serve-child.ts';
import { runCli } from './testing/run-cli.ts';

const lamps = join(import.meta.dirname, '../envs/testing/lamps-module.ts');
const episodesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { env: string; policyId: string });

describe('a module env on the command line', () => {
  const servers = new ServeChildren();
  afterEach(() => servers.kill());

  it("collects with the module's own expert, by a relative path", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    const out = join(dir, 'lamps.jsonl');
    const r = await runCli([
      'collect',
      '--env',
      `./${relative(process.cwd(), lamps)}`,
      '--epsilon',
      '0.2',
      '--episodes',
      '12',
      '--out',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(12);
    expect(new Set(episodes.map((e) => e.env))).toEqual(new Set(['lamps']));
    expect(episodes[0]?.policyId).toBe('lamps-expert(eps=0.2)');
  }, 60_000);

  it('without an expert: collect names the alternatives, and --policy random collects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    const bare = `module:${lamps}#bareLamps`;
    const refused = await runCli([
      'collect',
      '--env',
      bare,
      '--episodes',
      '3',
      '--out',
      join(dir, 'x.jsonl'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"lamps-bare" has no scripted expert.*random, llm/);
    expect(existsSync(join(dir, 'x.jsonl'))).toBe(false);
    const r = await runCli([
      'collect',
      '--env',
      bare,
      '--policy',
      'random',
      '--episodes',
      '5',
      '--out',
      join(dir, 'r.jsonl'),
    ]);
    expect(r.code).toBe(0);
    expect(episodesOf(join(dir, 'r.jsonl')).map((e) => e.env)).toEqual(Array(5).fill('lamps-bare'));
  }, 60_000);

  it('a broken module is refused with the module named, before any work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    writeFileSync(join(dir, 'env.ts'), 'export const x = 1;\n');
    const r = await runCli(['eval', '--env', join(dir, 'env.ts'), '--policy', 'random']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exports no EnvEntry/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
  }, 60_000);

  it('runs the whole loop from a config naming the module relative to the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    const config = join(dir, 'run.yaml');
    writeFileSync(
      config,
      [
        `env: ./${relative(dir, lamps)}`,
        'offline: { episodes: 20, policy: random }',
        'train: { iterations: 2, tasksPerIteration: 2, groupSize: 2, epochs: 1 }',
        'evaluation: { episodes: 6, every: 0 }',
      ].join('\n'),
    );
    const r = await runCli(['run', config, '--out', join(dir, 'run')]);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/held-out success after synthetic training: \d+\.\d%/);
    expect(readFileSync(join(dir, 'run', 'report.md'), 'utf8')).toMatch(/^# dreamgym run: lamps/);
    const recorded = JSON.parse(readFileSync(join(dir, 'run', 'config.json'), 'utf8'));
    expect(recorded.env).toEqual({ module: lamps });
  }, 150_000);

  it('fidelity and quality take the module; quality names the missing lens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    const fidelity = await runCli([
      'fidelity',
      '--env',
      lamps,
      '--offline-episodes',
      '30',
      '--episodes',
      '10',
      '--out',
      join(dir, 'fid'),
    ]);
    expect(fidelity.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'fid', 'fidelity.json'), 'utf8'));
    expect(report.teacherForced.transitions).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'fid', 'fidelity.md'), 'utf8')).toMatch(
      /lamps-expert\(eps=0\.3\)/,
    );
    const quality = await runCli(['quality', '--env', lamps, '--out', join(dir, 'q')]);
    expect(quality.code).toBe(1);
    expect(quality.stderr).toMatch(/"lamps" has no quality lens.*exports lens/);
  }, 150_000);

  it('serves the synthetic twin of the module env, learnt from a buffer of its episodes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-cli-'));
    const data = join(dir, 'lamps.jsonl');
    const db = join(dir, 'buffer.db');
    expect(
      (await runCli(['collect', '--env', lamps, '--episodes', '20', '--out', data])).code,
    ).toBe(0);
    expect((await runCli(['buffer', 'import', data, '--db', db])).code).toBe(0);
    // Two worker processes: each runs the CLI again and loads the module as the primary did.
    const served = await servers.start([
      '--env',
      `synthetic:${lamps}`,
      '--db',
      db,
      '--port',
      '0',
      '--workers',
      '2',
    ]);
    const post = async (path: string, body: object) =>
      (await fetch(`${served.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as unknown;
    const ids = (await Promise.all(
      Array.from({ length: 6 }, () => post('/create', {})),
    )) as number[];
    // Session ids name their worker (id % 2): both workers made the module's env.
    expect(new Set(ids.map((i) => i % 2))).toEqual(new Set([0, 1]));
    const id = ids[0] as number;
    const [text] = (await post('/reset', { env_idx: id })) as [string];
    // A page of the module's own shape, learnt from its episodes in the buffer.
    expect(Object.keys(JSON.parse(text).lamps).sort()).toEqual(['attic', 'desk', 'hall', 'porch']);
    const step = (await post('/step', { env_idx: id, action: 'finish' })) as { done: boolean };
    expect(step.done).toBe(true);
    expect(served.output()).toMatch(/serving synthetic:lamps /);
  }, 120_000);
});
