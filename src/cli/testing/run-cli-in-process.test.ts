import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { runCliInProcess } from './run-cli-in-process.ts';
import { spawningTestTimeout } from './timeouts.ts';

describe('runCliInProcess', () => {
  it.each([
    ['--help', ['--help']],
    ['a subcommand help', ['buffer', 'import', '--help']],
    [
      'a bad option',
      ['collect', '--env', 'webshop', '--epsilon', '2', '--out', '/tmp/never.jsonl'],
    ],
    ['an unknown option', ['eval', '--no-such-flag']],
    ['a command error', ['collect', '--env', 'shop', '--out', '/tmp/never.jsonl']],
    ['a command that succeeds', ['envs']],
  ])(
    'gives the code, stdout and stderr a child gives, for %s',
    async (_, args) => {
      const child = await runCli(args);
      const inProcess = await runCliInProcess(args);
      expect({ ...inProcess, leftOpen: undefined }).toEqual({ ...child, leftOpen: undefined });
      expect(inProcess.leftOpen).toEqual([]);
    },
    spawningTestTimeout(1),
  );

  it('a command error names the problem on stderr and exits 1, stdout empty', async () => {
    const run = await runCliInProcess(['collect', '--env', 'shop', '--out', '/tmp/never.jsonl']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: unknown env "shop"; available: webshop/);
  });

  it('feeds stdin, and leaves env, cwd and signal listeners as they were', async () => {
    const cwd = process.cwd();
    const sigint = process.listenerCount('SIGINT');
    const run = await runCliInProcess(['play', '--env', 'webshop', '--seed', '3'], {
      stdin: ':quit\n',
      env: { DREAMGYM_IN_PROCESS_PROBE: 'set' },
      cwd: '/',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[Search]');
    expect(process.env.DREAMGYM_IN_PROCESS_PROBE).toBeUndefined();
    expect(process.cwd()).toBe(cwd);
    expect(process.listenerCount('SIGINT')).toBe(sigint);
  });

  it('runs calls one at a time, each with its own output', async () => {
    const [help, envs] = await Promise.all([
      runCliInProcess(['--help']),
      runCliInProcess(['envs']),
    ]);
    expect(help.stdout).toMatch(/^Usage: dreamgym/);
    expect(envs.stdout).not.toContain('Usage:');
    expect(envs.stdout).toMatch(/^webshop/m);
  });
});
