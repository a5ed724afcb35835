import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../core/types.ts';
import { encodeTrajectory } from '../../data/trajectory-format.ts';
import { sketchTrajectory } from '../../view/testing/episodes.ts';
import { devBin } from '../testing/run-cli.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../testing/timeouts.ts';

describe('dreamgym view', () => {
  it('says a .db file that is not SQLite is not a replay buffer, instead of reading it as trajectories', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dg-view-cli-')), 'notsqlite.db');
    writeFileSync(path, 'just some text\n'.repeat(50));
    const run = await runCliInProcess(['view', path, '--port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${path} is not a SQLite database, so not a replay buffer`);
    expect(run.stdout).not.toContain('viewing');
  });

  it('names what PATH may be when it does not exist', async () => {
    const run = await runCliInProcess(['view', '/no/such/run']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: /no/such/run does not exist: pass a run folder');
  });

  // In a child: a server in its own process, stopped by a signal.
  it('serves a trajectory file with a token, prints the link that opens it, and stops on SIGINT', {
    timeout: spawningTestTimeout(1),
  }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dg-view-cli-')), 'episodes.jsonl');
    const episode: Trajectory = sketchTrajectory('only', {
      steps: [{ action: 'search[mug]', text: 'no results', terminated: true }],
    });
    writeFileSync(path, `${encodeTrajectory(episode)}\n`);
    const child = spawn(process.execPath, [devBin, 'view', path, '--port', '0', '--token', 'tok'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      while (!/open (\S+)/.test(out)) {
        const [chunk] = (await once(child.stdout, 'data')) as [string];
        out += chunk;
      }
      expect(out).toContain(`viewing trajectory file ${path}: 1 episodes`);
      const link = /open (\S+)/.exec(out)?.[1] as string;
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=tok$/);
      const origin = new URL(link).origin;
      expect((await fetch(`${origin}/episodes`)).status).toBe(401);
      const opened = await fetch(link, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const list = await fetch(`${origin}/episodes`, { headers: { cookie } });
      expect(await list.text()).toContain('data-id="only"');
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
