import { beforeAll, describe, expect, it } from 'vitest';
import type { Observation, Step, Task, Trajectory } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';
import { WebKnowledge } from './knowledge.ts';
import { playModel } from './testing/play.ts';
import {
  forum,
  home,
  POSTS,
  type Post,
  postPage,
  results,
  tinyForumTrajectories,
  trajectory,
} from './testing/tiny-forum.ts';
import { WebExperienceModel } from './web-model.ts';

let offline: Trajectory[];
let model: WebExperienceModel;

beforeAll(() => {
  offline = tinyForumTrajectories();
  model = new WebExperienceModel(WebKnowledge.fromTrajectories(offline));
});

const task = (instruction: string, spec?: Record<string, unknown>): Task => ({
  id: 'synthetic-1',
  env: 'web:tiny',
  instruction,
  origin: 'generated',
  ...(spec && { spec }),
});

/** Plays actions in the model as SyntheticEnv would, returning every step. */
async function play(t: Task, actions: string[]): Promise<{ start: Observation; steps: Step[] }> {
  const start = await model.initial(t, []);
  return { start, steps: await playModel(model, t, start, actions) };
}

const texts = (steps: Step[]) => steps.map((s) => s.observation.text);

describe('WebExperienceModel', () => {
  it('starts where the real episode of the most similar instruction started', async () => {
    const start = await model.initial(task("How many comments does 'Cast iron care' have?"), []);
    expect(start.text).toBe(home().text);
    expect(start.actions).toEqual(home().actions);
  });

  it('follows the site graph by role and name and keeps an episode consistent on revisits', async () => {
    const { steps } = await play(task("How many comments does 'Cast iron care' have?"), [
      'click [3]',
      'click [8]',
      'go_back',
      'click [8]',
      'go_back',
      'go_back',
      'click [3]',
    ]);
    const [forumPage, post, back, again, , homePage, forumAgain] = texts(steps);
    expect(homePage).toBe(home().text);
    expect(forumPage).toBe(forum().text);
    expect(post).toBe(postPage(POSTS[2] as Post).text);
    expect(back).toBe(forumPage);
    expect(again).toBe(post);
    expect(forumAgain).toBe(forumPage);
    expect(steps[1]?.observation.actions).toEqual(postPage(POSTS[2] as Post).actions);
    expect(steps[1]?.reasoning).toContain("link 'Cast iron care'");
  });

  it('leaves the page unchanged for an element the page does not show', async () => {
    const { start, steps } = await play(task('anything'), ['click [99]', 'type [77] [x] [0]']);
    expect(steps[0]?.observation.text).toBe(start.text);
    expect(steps[1]?.observation.text).toBe(start.text);
    expect(steps[0]?.reward).toBe(0);
    expect(steps[0]?.reasoning).toContain('no element [99]');
  });

  it('shows typed text in the fields, and keeps it while more is typed', async () => {
    const { steps } = await play(task("Comment on 'Sourdough starter tips'"), [
      'click [3]',
      'click [6]',
      'type [20] [Thanks a lot] [0]',
    ]);
    const typed = parseTree(steps[2]?.observation.text ?? '');
    const field = typed?.nodes.find((n) => n.id === '20');
    expect(field?.props).toContainEqual(['value', 'Thanks a lot']);
    expect(field?.props).toContainEqual(['focused', 'True']);
    expect(typed?.nodes[0]?.props).toEqual([]);
    expect(steps[2]?.observation.actions).toEqual(postPage(POSTS[1] as Post).actions);
  });

  it('leads a submitted form where the buffer says, with this episode values written in', async () => {
    const same = await play(task("Comment 'Nice!' on the post 'Best pasta sauce?'"), [
      'click [3]',
      'click [4]',
      'type [20] [Nice!] [0]',
      'click [21]',
    ]);
    const first = POSTS[0] as Post;
    const posted = postPage({ ...first, comments: [...first.comments, 'Nice!'] });
    expect(same.steps[3]?.observation.text).toBe(posted.text);
    const other = await play(task("Comment 'Lovely' on the post 'Best pasta sauce?'"), [
      'click [3]',
      'click [4]',
      'type [20] [Lovely] [0]',
      'click [21]',
      'click [2]',
      'click [3]',
      'click [4]',
    ]);
    const after = other.steps[3]?.observation.text ?? '';
    expect(after).toContain("StaticText 'Lovely'");
    expect(after).not.toContain('Nice!');
    expect(other.steps[3]?.reasoning).toContain('most alike values');
    // Revisiting the post later in the episode shows the comment still there.
    expect(other.steps[6]?.observation.text).toBe(after);
  });

  it('answers an unseen search with the nearest seen one, query written in', async () => {
    const { steps } = await play(task("Search the forum for 'pasta sauce'"), [
      'type [4] [pasta sauce] [1]',
    ]);
    const page = parseTree(steps[0]?.observation.text ?? '');
    expect(page?.url).toBe('http://127.0.0.1:41234/search?q=pasta%20sauce');
    expect(page?.nodes.find((n) => n.role === 'searchbox')?.props).toContainEqual([
      'value',
      'pasta sauce',
    ]);
    expect(page?.nodes.map((n) => n.name)).toContain('Best pasta sauce?');
    expect(steps[0]?.observation.text).not.toBe(results('pasta').text);
  });

  it('moves seen pages to the episode origin and header', async () => {
    const state = {
      ...home(),
      text: home().text.replace('http://127.0.0.1:41234', 'http://127.0.0.1:5000'),
    };
    const p = await model.predict({
      task: task('x'),
      history: [],
      state,
      action: 'click [3]',
      demonstrations: [],
    });
    expect(p.nextState.text).toBe(forum().text.replace('41234', '5000'));
  });

  it('scores stop by the reward model fit on real outcomes: grounded answers succeed', async () => {
    const t = task("How many comments does the post 'Cast iron care' have?");
    const right = await play(t, ['click [3]', 'click [8]', 'stop [3]']);
    const wrong = await play(t, ['click [3]', 'click [8]', 'stop [41]']);
    expect(right.steps[2]).toMatchObject({ reward: 1, terminated: true });
    expect(wrong.steps[2]).toMatchObject({ reward: 0, terminated: true });
    expect(right.steps[2]?.observation.actions).toEqual([]);
    expect(right.steps[2]?.observation.text).toBe(right.steps[1]?.observation.text);
  });

  it('never reads the task spec (it holds the reference answers)', async () => {
    const spec = new Proxy(
      {},
      {
        get() {
          throw new Error('the model read task.spec');
        },
        ownKeys() {
          throw new Error('the model read task.spec');
        },
      },
    );
    const t = task("How many comments does the post 'Cast iron care' have?", spec);
    const { steps } = await play(t, ['click [3]', 'click [8]', 'type [20] [a b] [0]', 'stop [3]']);
    expect(steps).toHaveLength(4);
  });

  it('is deterministic', async () => {
    const actions = ['click [3]', 'click [6]', 'type [20] [hi there] [1]', 'go_back', 'stop [1]'];
    const t = task('Comment on the sourdough post');
    expect(texts((await play(t, actions)).steps)).toEqual(texts((await play(t, actions)).steps));
  });

  it('opens, focuses and closes tabs from the episode history', async () => {
    const { steps } = await play(task('x'), ['click [3]', 'new_tab', 'tab_focus [0]', 'close_tab']);
    expect(steps[1]?.observation.text).toMatch(
      /^Tab 0: Cooking \| Tab 1 \(current\): \nURL: about:blank/,
    );
    expect(steps[2]?.observation.text).toBe(
      forum().text.replace('Tab 0 (current): Cooking', 'Tab 0 (current): Cooking | Tab 1: '),
    );
    expect(steps[3]?.observation.text).toMatch(/^Tab 0 \(current\): \nURL: about:blank/);
  });
});

describe('WebKnowledge', () => {
  it('learns only from tree pages and keys edges by role and name', () => {
    const k = WebKnowledge.fromTrajectories([
      ...offline,
      trajectory('not a web page', { text: 'WebShop\n[Search]', instruction: '' }, []),
    ]);
    expect(k.starts).toHaveLength(offline.length);
    expect(k.typing.source).toBe('buffer');
    expect([...k.edges.keys()].some((key) => key.includes("link 'Cooking'"))).toBe(true);
    expect([...k.edges.keys()].some((key) => /\[\d+\]/.test(key))).toBe(false);
    expect(k.roleActions.get('link')).toEqual(new Set(['click [{id}]']));
  });
});

describe("the web model's uncertainty", () => {
  it('is 0 along a real episode replayed, and on the env’s rules', async () => {
    for (const real of offline) {
      const { steps } = await play(
        real.task,
        real.steps.map((s) => s.action),
      );
      expect(
        steps.map((s) => s.info?.uncertainty),
        real.task.instruction,
      ).toEqual(real.steps.map(() => 0));
    }
    const { steps } = await play(task('anything'), ['click [99]', 'click [3]', 'go_back']);
    expect(steps.map((s) => s.info?.uncertainty)).toEqual([0, 0, 0]);
  });

  it('is high on a page no real episode showed for this action', async () => {
    const { steps } = await play(task("Comment 'Lovely' on the post 'Best pasta sauce?'"), [
      'click [3]',
      'click [4]',
      'type [20] [Lovely] [0]',
      'click [21]',
      'goto [http://127.0.0.1:41234/f/nowhere/99]',
    ]);
    const [, , typed, sent, away] = steps;
    expect(typed?.info?.uncertainty).toBe(0);
    // The real form sent "Nice!": one field, values alike in no word and few letters.
    expect(sent?.reasoning).toContain('most alike values');
    expect(sent?.info?.uncertainty).toBeGreaterThan(0.8);
    expect(away?.info?.uncertainty).toBe(1);
  });

  it("at stop, is the reward model's doubt: 0 where real episodes of the task decide", async () => {
    const [, , stop] = (
      await play(task("How many comments does the post 'Cast iron care' have?"), [
        'click [3]',
        'click [8]',
        'stop [7]',
      ])
    ).steps;
    expect(stop?.terminated).toBe(true);
    expect(stop?.info?.uncertainty).toBe(0);
  });
});
