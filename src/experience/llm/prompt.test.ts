import { describe, expect, it } from 'vitest';
import type { Observation, Task } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import { WEB_DESCRIPTION } from './env-descriptions.ts';
import { LlmExperienceModel } from './llm-model.ts';
import { DEFAULT_LIMITS, fitText, formatDemonstration } from './prompt.ts';

/** A long forum page: a nav, a search form, then `posts` posts with titles and comment counts. */
function bigPage(posts: number, focusedSearch = false): Observation {
  const lines = [
    "[1] RootWebArea 'Forum — All posts'",
    "\t[2] navigation ''",
    "\t\t[3] link 'Home'",
    "\t\t[4] link 'Forums'",
    `\t[5] searchbox 'Search'${focusedSearch ? ' focused: True' : ''} required: False`,
    "\t[6] heading 'All posts'",
  ];
  let id = 7;
  for (let p = 0; p < posts; p++) {
    lines.push(`\t[${id++}] article ''`);
    lines.push(`\t\t[${id++}] link 'Post number ${p} about cooking things'`);
    lines.push(`\t\t[${id++}] StaticText 'Submitted by user${p} three hours ago in Cooking'`);
    lines.push(`\t\t[${id++}] StaticText '${p} comments'`);
  }
  return {
    text: `Tab 0 (current): Forum — All posts\nURL: http://127.0.0.1:4000/all\n\n${lines.join('\n')}`,
    instruction: 'How many comments does post number 90 have?',
    actions: ['click [3]', 'click [4]', 'stop [<answer>]'],
  };
}

describe('state budget: pruned accessibility trees', () => {
  it('keeps a page that fits as it is', () => {
    const page = bigPage(3).text;
    expect(fitText(page, 6_000, { action: 'click [8]' })).toBe(page);
  });

  it('cuts a long page to the budget, keeping the header, the target region, the focus and landmarks', () => {
    const page = bigPage(200, true);
    const target = /\[(\d+)\] link 'Post number 150 about/.exec(page.text)?.[1] as string;
    const pruned = fitText(page.text, 3_000, { action: `click [${target}]` });
    expect(page.text.length).toBeGreaterThan(20_000);
    expect(pruned.length).toBeLessThanOrEqual(3_000);
    expect(
      pruned.startsWith(
        'Tab 0 (current): Forum — All posts\nURL: http://127.0.0.1:4000/all\n\n[1] RootWebArea',
      ),
    ).toBe(true);
    expect(pruned).toContain(`[${target}] link 'Post number 150 about cooking things'`);
    expect(pruned).toContain("StaticText '150 comments'");
    expect(pruned).toContain(`[${Number(target) - 1}] article ''`);
    expect(pruned).toContain("[5] searchbox 'Search' focused: True required: False");
    expect(pruned).toContain("[6] heading 'All posts'");
    expect(pruned).toMatch(/\t\[… \d+ lines cut …\]/);
    // Lines kept appear in page order, each exactly as in the page.
    const original = page.text.split('\n');
    const kept = pruned.split('\n').filter((l) => !/\[… \d+ lines? cut …\]/.test(l));
    let at = 0;
    for (const line of kept) {
      at = original.indexOf(line, at);
      expect(at, line).toBeGreaterThanOrEqual(0);
    }
    // Every cut line is counted by a marker.
    const cut = [...pruned.matchAll(/\[… (\d+) lines? cut …\]/g)].reduce(
      (s, m) => s + Number(m[1]),
      0,
    );
    expect(kept.length + cut).toBe(original.length);
  });

  it("keeps a demonstration's changed region in its next state", () => {
    const before = bigPage(120);
    const after = {
      ...before,
      text: before.text
        .replace(
          "[5] searchbox 'Search' required: False",
          "[5] searchbox 'Search' value: pasta focused: True required: False",
        )
        .replace("StaticText '77 comments'", "StaticText '78 comments'"),
    };
    const demo = {
      id: 1,
      trajectoryId: 't',
      provenance: 'real-offline',
      policyId: 'expert',
      similarity: 0.9,
      task: { id: 'x', env: 'web:forum', instruction: 'x', origin: 'seed' },
      t: 3,
      state: before,
      action: 'type [5] [pasta] [0]',
      nextState: after,
      reward: 0,
      terminated: false,
      truncated: false,
    } satisfies RetrievedTransition;
    const written = formatDemonstration(demo, 0, DEFAULT_LIMITS);
    const next = written.slice(written.indexOf('Next state:'));
    expect(next).toContain('value: pasta focused: True');
    expect(next).toContain("StaticText '78 comments'");
    expect(written.length).toBeLessThan(2 * DEFAULT_LIMITS.demonstration + 600);
  });

  it('leaves non-tree text to head-and-tail clipping', () => {
    const text = `WebShop\n${'x'.repeat(5_000)}`;
    const fitted = fitText(text, 1_000, { action: 'click [3]' });
    expect(fitted).toContain('characters cut');
    expect(fitted.startsWith('WebShop')).toBe(true);
  });
});

describe('LlmExperienceModel on web pages (MockLlm)', () => {
  const task: Task = {
    id: 'w1',
    env: 'web:forum',
    instruction: 'How many comments does post number 150 have?',
    origin: 'seed',
  };

  it('tells the model the web format and shows a pruned state within the budget', async () => {
    const state = bigPage(200);
    const next = bigPage(1);
    const llm = new MockLlm({
      answers: [
        {
          reasoning: 'Clicking the post link loads the post page.',
          next_state: { text: next.text, actions: next.actions },
          reward: 0,
          terminated: false,
        },
      ],
    });
    const model = new LlmExperienceModel({ llm, limits: { state: 4_000 } });
    const prediction = await model.predict({
      task,
      history: [],
      state,
      action: 'click [608]',
      demonstrations: [],
    });
    const [system, user] = llm.requests[0]?.messages.map((m) => m.content) ?? [];
    expect(system).toContain(WEB_DESCRIPTION);
    const section =
      user?.slice(user.indexOf('## Current state\n'), user.indexOf('\nAdmissible actions')) ?? '';
    expect(section.length).toBeLessThan(4_000 + 40);
    expect(section).toContain("[608] link 'Post number 150 about cooking things'");
    expect(section).toContain('lines cut');
    expect(user).toContain('## Action\nclick [608]');
    expect(parseTree(prediction.nextState.text)?.nodes[0]?.name).toBe('Forum — All posts');
  });

  it('shows the whole page when it fits the budget', async () => {
    const state = bigPage(5);
    const llm = new MockLlm({
      answers: [
        {
          reasoning: 'r',
          next_state: { text: state.text, actions: state.actions },
          reward: 0,
          terminated: false,
        },
      ],
    });
    await new LlmExperienceModel({ llm }).predict({
      task,
      history: [],
      state,
      action: 'scroll [down]',
      demonstrations: [],
    });
    expect(llm.requests[0]?.messages[1]?.content).toContain(`## Current state\n${state.text}\n`);
  });
});
