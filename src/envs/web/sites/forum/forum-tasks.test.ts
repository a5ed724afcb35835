import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WebArenaConfigSchema } from '../../webarena/config.ts';
import { templateDatabase, webAppRouter } from '../web-app.ts';
import { forumApp } from './forum-app.ts';
import {
  buildForumTaskList,
  FORUM_TEST_TASK_COUNT,
  forumTaskList,
  forumTasks,
  forumTemplateOf,
} from './forum-tasks.ts';
import { FORUM_TEMPLATES } from './task-templates.ts';

describe('forum tasks', () => {
  const all = forumTaskList(0);

  it('has at least 30 templates and 500 tasks, every template in the test split', () => {
    expect(FORUM_TEMPLATES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(FORUM_TEMPLATES.map((t) => t.id)).size).toBe(FORUM_TEMPLATES.length);
    expect(all.length).toBeGreaterThanOrEqual(500);
    const test = forumTasks(0).tasks('test');
    expect(test).toHaveLength(FORUM_TEST_TASK_COUNT);
    const templates = new Set(test.map((task) => forumTemplateOf(task).template.id));
    expect(templates.size).toBe(FORUM_TEMPLATES.length);
  });

  it('is deterministic, and asking for more never changes the first ones', () => {
    const again = buildForumTaskList(0);
    expect(again.map((e) => e.config)).toEqual(all.map((e) => e.config));
    const source = forumTasks(0);
    expect(source.tasks('train', 5)).toEqual(source.tasks('train').slice(0, 5));
    expect(source.tasks('test', 7)).toEqual(source.tasks('test').slice(0, 7));
  });

  it('keeps train and test apart and names tasks web:forum/<index>', () => {
    const source = forumTasks(0);
    const test = source.tasks('test');
    const train = source.tasks('train');
    expect(test.length + train.length).toBe(all.length);
    expect(test[0]?.id).toBe('web:forum/0');
    expect(train[0]?.id).toBe(`web:forum/${FORUM_TEST_TASK_COUNT}`);
    const intents = new Set(test.map((t) => t.instruction));
    expect(train.some((t) => intents.has(t.instruction))).toBe(false);
  });

  it('writes valid WebArena configs for the reddit site with placeholders', () => {
    for (const { config, template } of all) {
      expect(WebArenaConfigSchema.safeParse(config).success).toBe(true);
      expect(config.sites).toEqual(['reddit']);
      expect(config.start_url).toBe('__REDDIT__');
      expect(config.intent).not.toMatch(/\{\w+\}/);
      expect(config.require_login).toBe(template.requireLogin);
      const urls = [
        config.eval.reference_url ?? '',
        ...(config.eval.program_html ?? []).map((c) => c.url),
      ].filter((u) => u !== '' && u !== 'last' && !u.startsWith('func:'));
      for (const url of urls) expect(url.startsWith('__REDDIT__/')).toBe(true);
    }
  });

  it('varies the phrasing within a template', () => {
    const phrasings = new Set(
      all.filter((e) => e.template.key === 'post_score').map((e) => e.config.intent_template),
    );
    expect(phrasings.size).toBeGreaterThan(1);
  });

  it('refuses tasks that are not forum tasks, naming what plays them', () => {
    expect(() =>
      forumTemplateOf({ id: 'x', env: 'web:forum', instruction: 'x', origin: 'generated' }),
    ).toThrow(/forumTasks/);
    expect(() => forumTasks(0).tasks('test', FORUM_TEST_TASK_COUNT + 1)).toThrow(/train split/);
  });
});

describe('forum reference answers agree with the pages', () => {
  const db = new Database(templateDatabase(forumApp, 0));
  const app = webAppRouter(forumApp, () => db);
  const html = async (path: string) => (await app.request(path)).text();
  const text = (page: string) =>
    page
      .replaceAll(/<[^>]+>/g, '')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&');
  /** A post page found the way a user would: search the title, follow the first result. */
  const postPage = async (title: string) => {
    const results = await html(`/search?q=${encodeURIComponent(title)}`);
    const href = /<h2 class="post-title"><a href="([^"]+)">/.exec(results)?.[1] as string;
    return html(href);
  };
  const reference = (key: string) =>
    forumTaskList(0)
      .filter((e) => e.template.key === key)
      .slice(0, 8)
      .map((e) => ({
        slots: e.config.instantiation_dict as Record<string, string>,
        answer: String(
          e.config.eval.reference_answers?.exact_match ??
            e.config.eval.reference_answers?.must_include?.[0],
        ),
      }));

  it.each([
    ['post_score', 'Score'],
    ['post_comment_count', 'Comments'],
    ['post_date', 'Submitted'],
    ['post_author', 'Author'],
  ])('%s: the post page shows the reference as its %s', async (key, label) => {
    for (const { slots, answer } of reference(key)) {
      expect(text(await postPage(slots.title as string))).toContain(`${label}: ${answer}`);
    }
  });

  it.each([
    ['forum_subscribers', 'Subscribers'],
    ['forum_post_count', 'Total posts'],
    ['forum_moderator', 'Moderator'],
  ])('%s: the forum page shows the reference as its %s', async (key, label) => {
    for (const { slots, answer } of reference(key)) {
      expect(text(await html(`/f/${slots.forum}`))).toContain(`${label}: ${answer}`);
    }
  });

  it.each([
    ['user_karma', 'Karma'],
    ['user_post_count', 'Posts submitted'],
    ['user_comment_count', 'Comments written'],
    ['user_joined', 'Joined'],
  ])('%s: the profile shows the reference as its %s', async (key, label) => {
    for (const { slots, answer } of reference(key)) {
      expect(text(await html(`/user/${slots.user}`))).toContain(`${label}: ${answer}`);
    }
  });

  it('forum_top_post and forum_newest_post: the sorted forum lists the reference first', async () => {
    for (const [key, sort] of [
      ['forum_top_post', 'top'],
      ['forum_newest_post', 'new'],
    ] as const) {
      for (const { slots, answer } of reference(key)) {
        const page = await html(`/f/${slots.forum}?sort=${sort}`);
        const first = /<h2 class="post-title"><a [^>]*>([^<]+)<\/a>/.exec(page)?.[1];
        expect(first).toBe(answer);
      }
    }
  });

  it('search_count: the search page counts the reference', async () => {
    for (const { slots, answer } of reference('search_count')) {
      const page = await html(`/search?q=${encodeURIComponent(slots.query as string)}`);
      expect(text(page)).toContain(`Posts found: ${answer}`);
    }
  });
});
