import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step, Task } from '../../../core/types.ts';
import { type SharedTestSite, startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { solveTestSite, testSiteTasks } from '../testing/test-site-tasks.ts';
import { evaluateTask } from '../webarena/evaluate.ts';
import type { BrowserEnv } from './browser-env.ts';

const all = [...testSiteTasks().tasks('test'), ...testSiteTasks().tasks('train')];
const task = (id: string) => all.find((t) => t.id === `testsite/${id}`) as Task;

let site: SharedTestSite;
let env: BrowserEnv;
beforeAll(async () => {
  site = await startSharedTestSite();
  env = testSiteEnv(site, { evaluate: evaluateTask, actionTimeoutMs: 20_000 });
});
afterAll(async () => {
  await env?.close();
  await site?.close();
});

/** Plays the expert until it stops; `lastAction` replaces its final `stop`. */
async function play(t: Task, lastAction?: string) {
  let { observation } = await env.reset({ task: t });
  const history: Step[] = [];
  for (let i = 0; i < 12; i++) {
    let action = await solveTestSite(observation, t, history);
    if (action.startsWith('stop') && lastAction) action = lastAction;
    const result = await env.step(action);
    if (result.terminated || result.truncated) return result;
    history.push({ action, ...result });
    observation = result.observation;
  }
  throw new Error(`${t.id}: the expert did not stop`);
}

describe("BrowserEnv with WebArena's evaluators, one config of each eval type", () => {
  it('string_match: the right answer passes, a wrong one fails', async () => {
    const right = await play(task('price-1'));
    expect(right.reward).toBe(1);
    const wrong = await play(task('price-1'), 'stop [$0.00]');
    expect(wrong.reward).toBe(0);
    expect(wrong.info.evaluation).toMatchObject({ reward: 0, undecided: false });
  });

  it('url_match: ending on the reference page passes, elsewhere fails', async () => {
    expect((await play(task('contact'))).reward).toBe(1);
    await env.reset({ task: task('contact') });
    const elsewhere = await env.step('stop []');
    expect(elsewhere.reward).toBe(0);
  });

  it('program_html: the sent message is found on /messages; nothing sent fails', async () => {
    const sent = await play(task('message-2'));
    expect(sent.reward).toBe(1);
    const checks = (sent.info.evaluation as { checks: Array<{ passed: unknown }> }).checks;
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((c) => c.passed === true)).toBe(true);
    await env.reset({ task: task('message-2') });
    expect((await env.step('stop []')).reward).toBe(0);
    expect((await play(task('settings-dark'))).reward).toBe(1);
  });
});
