/**
 * Pages the buffer never showed, composed so that an agent reading them stays on course: where the
 * forum expert looped to the step limit in the synthetic env before (issue 16's free-running gap).
 */
import { describe, expect, it } from 'vitest';
import type { Observation, Step, Task } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';
import { WebKnowledge } from './knowledge.ts';
import { playModel } from './testing/play.ts';
import { home, ORIGIN, page, trajectory } from './testing/tiny-forum.ts';
import { WebExperienceModel } from './web-model.ts';

const user = (name: string, sort?: string) =>
  page(`u/${name}`, `/user/${name}${sort ? `?sort=${sort}` : ''}`, [
    `0|[1] RootWebArea 'u/${name}' focused: True`,
    `1|[2] heading 'u/${name}${sort ? ` — ${sort} posts` : ''}'`,
    `1|[3] link 'Top' url: ${ORIGIN}/user/${name}?sort=top`,
  ]);

const single = (path: string) =>
  page(path, path, [`0|[1] RootWebArea '${path}' focused: True`, `1|[2] heading '${path}'`]);

/** A results page whose one link is named as the query was (a search for a post's title). */
const results = (query: string, post: number) =>
  page(`Search: ${query}`, `/search?q=${encodeURIComponent(query)}`, [
    `0|[1] RootWebArea 'Search: ${query}' focused: True`,
    `1|[2] searchbox 'Search' value: ${query} required: False`,
    `1|[3] link '${query}' url: ${ORIGIN}/f/cooking/${post}`,
  ]);

const post = (id: number, title: string, voted = false) =>
  page(title, `/f/cooking/${id}`, [
    `0|[1] RootWebArea '${title}' focused: True`,
    `1|[2] heading '${title}'`,
    `1|[3] button 'Upvote'${voted ? ' pressed: true' : ''}`,
  ]);

const searchHome = () =>
  page('Forum', '/', [
    "0|[1] RootWebArea 'Forum' focused: True",
    "1|[4] searchbox 'Search' required: False",
  ]);

const model = new WebExperienceModel(
  WebKnowledge.fromTrajectories([
    trajectory('Open the top posts of anna', user('anna'), [['click [3]', user('anna', 'top')]]),
    trajectory('Open the profile of bob', home(), [['goto [/user/bob]', user('bob')]]),
    trajectory('Open the profile of carl', home(), [['goto [/user/carl]', user('carl')]]),
    trajectory('Open the search page', home(), [['goto [/search]', single('/search')]]),
    trajectory('Open the forums page', home(), [['goto [/forums]', single('/forums')]]),
    trajectory("Open the post 'Best pasta sauce tonight'", searchHome(), [
      ['type [4] [Best pasta sauce tonight] [1]', results('Best pasta sauce tonight', 1)],
      ['click [3]', post(1, 'Best pasta sauce tonight')],
      ['click [3]', post(1, 'Best pasta sauce tonight', true)],
    ]),
  ]),
);

const task = (instruction: string): Task => ({
  id: 'synthetic-1',
  env: 'web:tiny',
  instruction,
  origin: 'generated',
});

const play = (t: Task, start: Observation, actions: string[]) =>
  playModel(model, t, start, actions);

const urlOf = (s: Step | undefined) => parseTree(s?.observation.text ?? '')?.url;
const headingOf = (s: Step | undefined) =>
  parseTree(s?.observation.text ?? '')?.nodes.find((n) => n.role === 'heading')?.name;

describe('composed web pages', () => {
  it('carry the URL asked for, query included, from a seen page of the same query', async () => {
    const [profile, top] = await play(task('Open the top posts of dora'), user('dora'), [
      'goto [/user/dora]',
      'click [3]',
    ]);
    expect(urlOf(profile)).toBe(`${ORIGIN}/user/dora`);
    // The sorted page was composed from anna's sorted one, not from bob's or carl's plain one.
    expect(urlOf(top)).toBe(`${ORIGIN}/user/dora?sort=top`);
    expect(headingOf(top)).toBe('u/dora — top posts');
  });

  it('never stand one single-segment page in for another (/submit is not /search)', async () => {
    const [step] = await play(task('Submit a post'), home(), [`goto [${ORIGIN}/submit]`]);
    expect(step?.observation.text).toBe(home().text);
    expect(step?.reasoning).toMatch(/no real episode loaded \/submit/);
  });

  it('lead from a result this episode retitled to a page of that title, kept after a vote', async () => {
    const [found, opened, voted] = await play(
      task("Upvote the post 'Cast iron pan care'"),
      searchHome(),
      ['type [4] [Cast iron pan care] [1]', 'click [3]', 'click [3]'],
    );
    expect(found?.observation.text).toMatch(/link 'Cast iron pan care'/);
    expect(urlOf(opened)).toBe(`${ORIGIN}/f/cooking/1`);
    expect(headingOf(opened)).toBe('Cast iron pan care');
    expect(opened?.observation.text).not.toMatch(/Best pasta sauce tonight/);
    expect(voted?.observation.text).toMatch(/button 'Upvote' pressed: true/);
    expect(headingOf(voted)).toBe('Cast iron pan care');
  });
});
