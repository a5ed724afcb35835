/**
 * A user's own env (a module nobody wrote a model for) → offline episodes in a buffer → its served
 * synthetic twin, driven by the Python client `dreamgym-client` over both protocols, as a trainer
 * would drive it; the episodes come back to the buffer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { venvPython } from '../core/testing/python.ts';
import { envEntry, resolveEnvRef } from '../envs/registry.ts';
import { makePolicy } from '../policy/registry.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { collect } from '../rl/collect.ts';
import { serveEnv } from './serve-env.ts';

const lamps = join(import.meta.dirname, '../envs/testing/lamps-module.ts');

const DRIVE = `
import json, sys
from dreamgym_client import DreamGymClient
url = sys.argv[1]
out = []
for protocol in ("openenv", "agentgym"):
    with DreamGymClient(url, protocol=protocol) as env:
        for episode in range(2):
            result = env.reset()
            steps = 0
            while not result.done and steps < 6:
                choices = [a for a in result.observation.actions if "<" not in a]
                result = env.step(choices[(episode + steps) % len(choices)])
                steps += 1
            out.append({"protocol": protocol, "first": result.observation.text, "steps": steps,
                        "done": result.done, "reward": result.reward})
print(json.dumps(out))
`;

describe("a user env's served synthetic twin", () => {
  it('is driven by the Python client over OpenEnv and AgentGym; its episodes reach the buffer', async () => {
    const python = venvPython();
    const family = await resolveEnvRef(lamps);
    const entry = envEntry(family);
    const dir = mkdtempSync(join(tmpdir(), 'dg-user-twin-'));
    const db = join(dir, 'buffer.db');
    const real = entry.make({});
    const buffer = SqliteReplayBuffer.open({ path: db });
    try {
      await buffer.add(
        await collect({
          env: real,
          policy: makePolicy('expert', { env: family, epsilon: 0.3 }),
          tasks: entry.tasks({}).tasks('train', 30),
          episodes: 30,
          seed: 1,
          provenance: 'real-offline',
        }),
      );
    } finally {
      await real.close();
      await buffer.close();
    }
    const served = await serveEnv({ env: `synthetic:${family}`, db, port: 0 });
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(python, ['-c', DRIVE, served.url], {
        timeout: 60_000,
      }).catch((error: { stderr?: string; message: string }) => {
        throw new Error(
          `the Python client failed (run npm run setup if a module is missing): ${error.stderr ?? error.message}`,
        );
      }));
    } finally {
      await served.close();
    }
    const episodes = JSON.parse(stdout) as Array<{
      protocol: string;
      done: boolean;
      steps: number;
    }>;
    expect(episodes.map((e) => e.protocol)).toEqual(['openenv', 'openenv', 'agentgym', 'agentgym']);
    for (const e of episodes) expect(e.steps).toBeGreaterThan(0);
    const after = SqliteReplayBuffer.open({ path: db, create: false });
    try {
      const synthetic = await after.trajectoryIds({ env: family, provenance: 'synthetic' });
      // Each client episode was written back, finished or (cut off by the script) abandoned.
      expect(synthetic.length).toBe(4);
    } finally {
      await after.close();
    }
  }, 120_000);
});
