import { describe, expect, it } from 'vitest';
import type { Observation, Task } from '../../core/types.ts';
import { makeHousehold } from '../../envs/household/household-env.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import { StartTemplates } from './initial-state.ts';
import { LlmExperienceModel } from './llm-model.ts';

const task = (id: string, instruction: string, env = 'webshop'): Task => ({
  id,
  env,
  instruction,
  origin: 'seed',
});

/** A retrieved episode start (t = 0) of `of`. */
function start(of: Task, state: Observation): RetrievedTransition {
  return {
    id: 1,
    trajectoryId: `trajectory-${of.id}`,
    provenance: 'real-offline',
    policyId: 'expert',
    task: of,
    t: 0,
    state,
    action: 'look',
    nextState: state,
    reward: 0,
    terminated: false,
    truncated: false,
    similarity: 0.9,
  };
}

const searchPage = (instruction: string): Observation => ({
  text: `WebShop\nInstruction:\n${instruction}\n[Search]`,
  instruction,
  actions: ['search[<query>]'],
});

/** Real household episode starts: every room differs, so they are no template. */
async function householdStarts(seeds: number[]): Promise<RetrievedTransition[]> {
  const env = makeHousehold({ split: 'train' });
  const starts: RetrievedTransition[] = [];
  for (const seed of seeds) {
    const { observation, info } = await env.reset({ seed });
    starts.push(start(info.task, observation));
  }
  return starts;
}

describe('first observations', () => {
  const shoppers = ['i want red shoes', 'find a usb charger', 'a lamp under 30 dollars'].map(
    (instruction, i) => task(`t${i}`, instruction),
  );
  const wanted = task('new', 'i need blue socks');

  it('fills a template when starts of three different tasks agree on it', () => {
    const starts = shoppers.map((t) => start(t, searchPage(t.instruction)));
    expect(new StartTemplates().known(wanted, starts)).toEqual(searchPage(wanted.instruction));
    expect(new StartTemplates().known(wanted, starts.slice(0, 2))).toBeUndefined();
  });

  it('remembers starts across calls, since each reset retrieves only a few', () => {
    const templates = new StartTemplates();
    for (const shopper of shoppers.slice(0, 2))
      expect(
        templates.known(wanted, [start(shopper, searchPage(shopper.instruction))]),
      ).toBeUndefined();
    const last = shoppers[2] as Task;
    expect(templates.known(wanted, [start(last, searchPage(last.instruction))])).toEqual(
      searchPage(wanted.instruction),
    );
  });

  it('never trusts a template once one start disagrees', () => {
    const templates = new StartTemplates();
    const odd = task('odd', 'buy a kettle');
    const otherPage = { ...searchPage(odd.instruction), text: `Welcome!\n${odd.instruction}` };
    const starts = [...shoppers, odd].map((t) =>
      start(t, t === odd ? otherPage : searchPage(t.instruction)),
    );
    expect(templates.known(wanted, starts)).toBeUndefined();
    expect(templates.known(wanted, starts.slice(0, 3))).toBeUndefined();
  });

  it('reuses the recorded start of the same task', async () => {
    const [first] = await householdStarts([5]);
    const recorded = first as RetrievedTransition;
    expect(new StartTemplates().known(recorded.task, [recorded])).toEqual(recorded.state);
  });

  it('asks the LLM when starts differ beyond the instruction (household rooms)', async () => {
    const starts = await householdStarts([1, 2, 3]);
    const wanted = task('new', 'put a mug in the fridge.', 'household');
    expect(new StartTemplates().known(wanted, starts)).toBeUndefined();
    const llm = new MockLlm({
      answers: [
        {
          reasoning: 'A kitchen, since the task needs a mug and a fridge.',
          state: {
            text: 'You are in the middle of a room. Looking quickly around you, you see a fridge 1, and a countertop 1.\n\nYour task is to: put a mug in the fridge.',
            actions: ['go to fridge 1', 'go to countertop 1', 'go to fridge 1', 'look'],
          },
        },
      ],
    });
    const observation = await new LlmExperienceModel({ llm }).initial(wanted, [
      ...starts,
      { ...(starts[0] as RetrievedTransition), t: 3 },
    ]);
    expect(observation.actions).toEqual(['go to fridge 1', 'go to countertop 1', 'look']);
    expect(observation.instruction).toBe(wanted.instruction);
    const user = llm.requests[0]?.messages[1]?.content ?? '';
    expect(user).toContain('## Task\nput a mug in the fridge.');
    for (const [i, s] of starts.entries()) {
      expect(user).toContain(`### Example ${i + 1} (task: ${s.task.instruction})\n${s.state.text}`);
    }
    expect(user).not.toContain('### Example 4');
    expect(llm.requests[0]?.messages[0]?.content).toContain('A text household (after ALFWorld)');
  });

  it('requires admissible actions at the start of envs that list them', async () => {
    const starts = await householdStarts([1, 2]);
    const llm = new MockLlm({
      answers: [{ reasoning: 'r', state: { text: 'A room.', actions: [] } }],
    });
    await expect(
      new LlmExperienceModel({ llm }).initial(task('new', 'x', 'household'), starts),
    ).rejects.toThrow(/state.actions is empty/);
  });
});
