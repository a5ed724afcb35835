import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/testing/run-cli-in-process.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import {
  type FakeAlfWorldServer,
  startFakeAlfWorldServer,
} from './testing/fake-alfworld-server.ts';
import { type FakeGenericServer, startFakeGenericServer } from './testing/fake-generic-server.ts';
import { type FakeWebShopServer, startFakeWebShopServer } from './testing/fake-webshop-server.ts';

const dreamgym = (args: string[], stdin = '') => runCliInProcess(args, { stdin });

let webshop: FakeWebShopServer;
let alfworld: FakeAlfWorldServer;
let maze: FakeGenericServer;
beforeAll(async () => {
  [webshop, alfworld, maze] = await Promise.all([
    startFakeWebShopServer(),
    startFakeAlfWorldServer(),
    startFakeGenericServer({ prefix: '/maze', taskField: 'game', listing: 'fixed' }),
  ]);
});
afterAll(async () => {
  await Promise.all([webshop.close(), alfworld.close(), maze.close()]);
});

describe('dreamgym with --env agentgym:NAME@URL', () => {
  it('collect plays a policy on the server and writes its trajectories', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dreamgym-agentgym-')), 'webshop.jsonl');
    const env = `agentgym:webshop@${webshop.url}`;
    const run = await dreamgym([
      'collect',
      ...['--env', env, '--policy', 'random', '--episodes', '3', '--split', 'test'],
      ...['--seed', '1', '--out', out],
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/episodes\s+3 \(test split, 3 distinct tasks\)/);
    const trajectories = await readTrajectories(out);
    expect(trajectories.map((t) => t.task.id)).toEqual([
      'agentgym:webshop/0',
      'agentgym:webshop/1',
      'agentgym:webshop/2',
    ]);
    for (const t of trajectories) {
      expect(t.env).toBe('agentgym:webshop');
      expect(t.task.instruction).toMatch(/^i need a /);
      expect(t.steps.at(-1)?.terminated || t.steps.at(-1)?.truncated).toBe(true);
    }
    expect(webshop.callsTo('/create')).toHaveLength(1);
    expect(webshop.closed).toHaveLength(1);
    expect(webshop.openSessions()).toEqual([]);
  });

  it('refuses the scripted expert, which needs goals a server does not expose', async () => {
    const run = await dreamgym([
      'collect',
      ...['--env', `agentgym:webshop@${webshop.url}`, '--out', '/tmp/never.jsonl'],
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/scripted expert .* hidden goal.*pass --policy random/);
  });

  it('play runs an ALFWorld episode from typed input and closes the session', async () => {
    const closed = alfworld.closed.length;
    const run = await dreamgym(
      ['play', '--env', `agentgym:alfworld@${alfworld.url}`, '--seed', '3'],
      'go to countertop 1\nlook\n:quit\n',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const index = Number(/task agentgym:alfworld\/(\d+): put a \w+ in \w+\./.exec(run.stdout)?.[1]);
    expect(index).toBeGreaterThanOrEqual(2420);
    expect(index).toBeLessThan(2620);
    expect(run.stdout).toContain('On the countertop 1, you see');
    expect(alfworld.closed.length).toBe(closed + 1);
  });

  it('collect plays any other AgentGym server through the table-driven client', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dreamgym-agentgym-')), 'maze.jsonl');
    const run = await dreamgym([
      'collect',
      ...['--env', `agentgym:maze@${maze.url}/maze`, '--policy', 'random', '--episodes', '2'],
      ...['--seed', '1', '--out', out],
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const trajectories = await readTrajectories(out);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      expect(t.env).toBe('agentgym:maze');
      expect(t.task.id).toMatch(/^agentgym:maze\/\d+$/);
      expect(t.steps.length).toBeLessThanOrEqual(15);
      expect(t.steps.at(-1)?.terminated || t.steps.at(-1)?.truncated).toBe(true);
    }
    expect(maze.callsTo('/maze/create')).toHaveLength(1);
    expect(maze.closed).toHaveLength(1);
  });
});
