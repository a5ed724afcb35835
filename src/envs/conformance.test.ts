import { describe, expect, it } from 'vitest';
import { PickBanditEnv } from '../rl/testing/bandit-env.ts';
import { runEnvConformance, type TestRunner } from './conformance.ts';
import type { StepResult } from './env.ts';

/** A runner that records the suite's tests instead of registering them with vitest. */
function recordingRunner() {
  const tests: Array<{ name: string; body: () => Promise<void> }> = [];
  const runner: TestRunner = {
    describe: (_name, body) => body(),
    it: (name, body) => tests.push({ name, body }),
  };
  const failures = async () => {
    const failed: string[] = [];
    for (const test of tests) await test.body().catch(() => failed.push(test.name));
    return failed;
  };
  return { runner, tests, failures };
}

/** Breaks the contract: an invalid action ends the episode instead of changing nothing. */
class EndsOnInvalidAction extends PickBanditEnv {
  override async step(action: string): Promise<StepResult> {
    const result = await super.step(action);
    return result.info.invalidAction ? { ...result, terminated: true } : result;
  }
}

describe('runEnvConformance', () => {
  it('runs with any runner that has describe and it, and passes a conforming env', async () => {
    const { runner, tests, failures } = recordingRunner();
    runEnvConformance({ name: 'bandit', makeEnv: () => new PickBanditEnv() }, runner);
    expect(tests.length).toBeGreaterThanOrEqual(7);
    expect(await failures()).toEqual([]);
  });

  it('fails the test that names the broken rule', async () => {
    const { runner, failures } = recordingRunner();
    runEnvConformance({ name: 'broken', makeEnv: () => new EndsOnInvalidAction() }, runner);
    expect(await failures()).toEqual([
      'an invalid action changes nothing, earns 0 and says why in info',
    ]);
  });
});
