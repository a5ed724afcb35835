import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Step, Task } from '../../core/types.ts';
import { forumTask, forumTaskList } from '../../envs/web/sites/forum/forum-tasks.ts';
import { ForumExpert } from './forum-expert.ts';
import { ForumPage } from './forum-expert-page.ts';

const ORIGIN = 'http://127.0.0.1:7780';

/** A page observation in the browser env's format: tabs, URL, blank line, tab-indented tree. */
function pageText(path: string, lines: string[]): string {
  return [
    'Tab 0 (current): Forum',
    `URL: ${ORIGIN}${path}`,
    '',
    "[1] RootWebArea 'Forum' focused: True",
    "\t[2] navigation 'Main'",
    `\t\t[3] link 'Forums' url: ${ORIGIN}/forums`,
    "\t\t[4] StaticText 'Signed in as '",
    `\t\t[5] link 'rowan_badger' url: ${ORIGIN}/user/rowan_badger`,
    "\t[6] search ''",
    "\t\t[7] searchbox 'Search'",
    "\t\t[8] button 'Search'",
    "\t[9] main ''",
    ...lines.map((line) => `\t\t${line}`),
  ].join('\n');
}

function taskOf(key: string): Task {
  const entry = forumTaskList(0).find((e) => e.template.key === key);
  if (!entry) throw new Error(`no task of template ${key}`);
  return forumTask(entry);
}

function slots(task: Task): Record<string, string> {
  return (task.spec as { instantiation_dict: Record<string, string> }).instantiation_dict;
}

const expert = new ForumExpert();
const act = (task: Task, text: string, history: Step[] = [], policy = expert) =>
  policy.act({ text, instruction: task.instruction }, { task, history, rng: new Rng(1) });

const step = (action: string, text: string): Step => ({
  action,
  observation: { text, instruction: '' },
  reward: 0,
  terminated: false,
  truncated: false,
});

describe('ForumPage', () => {
  it('reads the URL, facts (text or link), post titles and comments with their scores', () => {
    const page = new ForumPage(
      pageText('/f/cooking/12?x=1', [
        "[20] heading 'Best risotto'",
        "[21] list 'Details'",
        "\t[22] StaticText 'Author: '",
        `\t[23] link 'maple_otter' url: ${ORIGIN}/user/maple_otter`,
        "\t[24] StaticText 'Score: 42'",
        "[30] list 'Comment thread'",
        "\t[31] article 'Comment by amber_heron'",
        "\t\t[32] StaticText '7 points'",
        "\t\t[33] StaticText 'Nice one.'",
        "\t\t[34] article 'Comment by rowan_badger'",
        "\t\t\t[35] StaticText '9 points'",
        "\t[36] article 'Comment by basil_moth'",
        "\t\t[37] StaticText '-1 points'",
      ]),
    );
    expect(page.path).toBe('/f/cooking/12');
    expect(page.query('x')).toBe('1');
    expect(page.heading()).toBe('Best risotto');
    expect(page.fact('Author')).toBe('maple_otter');
    expect(page.fact('Score')).toBe('42');
    expect(page.signedInAs()).toBe('rowan_badger');
    const comments = page.comments();
    expect(comments.map((c) => [c.author, c.score, c.parentAuthor])).toEqual([
      ['amber_heron', 7, undefined],
      ['rowan_badger', 9, 'amber_heron'],
      ['basil_moth', -1, undefined],
    ]);
    expect(comments[0]?.texts).toEqual(['7 points', 'Nice one.']);
  });
});

describe('ForumExpert', () => {
  it('searches for the post, follows its link, then answers from the page', async () => {
    const task = taskOf('post_score');
    const title = slots(task).title as string;
    const front = pageText('/', []);
    expect((await act(task, front)).action).toBe(`type [7] [${title}] [1]`);
    const results = pageText('/search', [
      "[40] list 'Posts'",
      `\t[41] heading '${title}'`,
      `\t\t[42] link '${title}' url: ${ORIGIN}/f/cooking/3`,
    ]);
    expect((await act(task, results)).action).toBe('click [42]');
    const post = pageText('/f/cooking/3', [
      `[20] heading '${title}'`,
      "[24] StaticText 'Score: 17'",
    ]);
    expect((await act(task, post)).action).toBe('stop [17]');
  });

  it('votes only when the button is not already as asked', async () => {
    const task = taskOf('upvote_post');
    const title = slots(task).title as string;
    const post = (pressed: boolean) =>
      pageText('/f/cooking/3', [
        `[20] heading '${title}'`,
        `[25] button 'Upvote' pressed: ${pressed}`,
        "[26] button 'Downvote' pressed: false",
      ]);
    expect((await act(task, post(false))).action).toBe('click [25]');
    expect((await act(task, post(true))).action).toBe('stop []');
  });

  it('fills a form field by field, then submits it', async () => {
    const task = taskOf('create_post');
    const { new_title: title, new_body: body } = slots(task) as Record<string, string>;
    const form = pageText(`/submit?forum=${slots(task).forum}`, [
      "[50] textbox 'Title' required: True",
      "[51] textbox 'Body'",
      "[52] button 'Create post'",
    ]);
    expect((await act(task, form)).action).toBe(`type [50] [${title}] [0]`);
    const afterTitle = [step(`type [50] [${title}] [0]`, form)];
    expect((await act(task, form, afterTitle)).action).toBe(`type [51] [${body}] [0]`);
    const afterBody = [...afterTitle, step(`type [51] [${body}] [0]`, form)];
    expect((await act(task, form, afterBody)).action).toBe('click [52]');
    const created = pageText('/f/chess/999', [`[20] heading '${title}'`]);
    expect((await act(task, created, afterBody)).action).toBe('stop []');
  });

  it('remembers what a list page showed for two-stage tasks', async () => {
    const task = taskOf('open_forum_newest_post');
    const forum = slots(task).forum as string;
    const list = pageText(`/f/${forum}?sort=new`, [
      `[20] heading '${forum}'`,
      "[40] list 'Posts'",
      "\t[41] heading 'Newest thing'",
      `\t\t[42] link 'Newest thing' url: ${ORIGIN}/f/${forum}/77`,
    ]);
    expect((await act(task, list)).action).toBe('click [42]');
    const post = pageText(`/f/${forum}/77`, ["[20] heading 'Newest thing'"]);
    expect((await act(task, post, [step('click [42]', list)])).action).toBe('stop []');
  });

  it('slips at rate ε, deterministically for a given random stream', async () => {
    const task = taskOf('post_score');
    const front = pageText('/', [`[30] link 'Other post' url: ${ORIGIN}/f/x/1`]);
    const clumsy = new ForumExpert({ epsilon: 1 });
    const planned = (await act(task, front)).action;
    const first = await act(task, front, [], clumsy);
    const again = await act(task, front, [], clumsy);
    expect(first.action).not.toBe(planned);
    expect(first.reasoning).toContain('(noise)');
    expect(again.action).toBe(first.action);
    expect(() => new ForumExpert({ epsilon: 2 })).toThrow(RangeError);
  });

  it('refuses a task that is not a forum task', async () => {
    const task: Task = { id: 'x', env: 'web:forum', instruction: 'x', origin: 'generated' };
    await expect(act(task, pageText('/', []))).rejects.toThrow(/forumTasks/);
  });
});
