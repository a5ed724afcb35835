import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWebShopServer, startFakeWebShopServer } from './testing/fake-webshop-server.ts';

const script = join(import.meta.dirname, 'testing/hold-session.ts');

let fake: FakeWebShopServer;
beforeAll(async () => {
  fake = await startFakeWebShopServer();
});
afterAll(async () => {
  await fake.close();
});

/** Starts the child and waits until its session is open; resolves with the session id. */
async function holdSession(
  mode: string,
): Promise<{ child: ChildProcess; session: number; out: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, fake.url, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  for (let waited = 0; !/ready \d+/.test(out); waited += 20) {
    if (child.exitCode !== null || waited > 20_000) throw new Error(`child did not start: ${out}`);
    await sleep(20);
  }
  return { child, session: Number(/ready (\d+)/.exec(out)?.[1]), out: () => out };
}

async function exitOf(child: ChildProcess) {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  return { code: child.exitCode, signal: child.signalCode };
}

describe('sessions left open when the process ends', () => {
  it('are closed on SIGTERM, and the process still dies of the signal', async () => {
    const { child, session } = await holdSession('wait');
    expect(fake.openSessions()).toContain(session);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toEqual({ code: null, signal: 'SIGTERM' });
    expect(fake.closed).toContain(session);
  });

  it("are closed on SIGTERM without taking the signal from the program's own handler", async () => {
    const { child, session, out } = await holdSession('own-handler');
    child.kill('SIGTERM');
    for (let waited = 0; !fake.closed.includes(session) && waited < 5_000; waited += 20) {
      await sleep(20);
    }
    expect(fake.closed).toContain(session);
    await sleep(100);
    expect(child.exitCode).toBeNull();
    expect(out()).toContain('handled SIGTERM');
    child.kill('SIGKILL');
    await exitOf(child);
  });

  it('are closed when a program that forgot close() runs out of work, which then exits', async () => {
    const { child, session } = await holdSession('leave');
    expect(await exitOf(child)).toEqual({ code: 0, signal: null });
    expect(fake.closed).toContain(session);
  });
});
