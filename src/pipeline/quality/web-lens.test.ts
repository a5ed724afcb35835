import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph, realEnvModules } from '../../core/testing/module-graph.ts';
import type { Observation, Step, Trajectory } from '../../core/types.ts';
import { consistencyChecks, entityVocabulary, hallucinatedEntities } from './proxies.ts';
import { webLens } from './web-lens.ts';

const obs = (text: string): Observation => ({ text, instruction: 'i' });

function episode(initial: string, steps: Array<[action: string, text: string]>): Trajectory {
  return {
    id: `e-${Math.random()}`,
    env: 'web:forum',
    task: { id: 't', env: 'web:forum', instruction: 'i', origin: 'seed' },
    initial: obs(initial),
    steps: steps.map(
      ([action, text]): Step => ({
        action,
        observation: obs(text),
        reward: 0,
        terminated: false,
        truncated: false,
      }),
    ),
    provenance: 'synthetic',
    policyId: 'test',
    startedAt: '',
    endedAt: '',
  };
}

/** A page: the header, a blank line, its lines with ids numbered from `first` in line order. */
function page(title: string, path: string, lines: string[], first = 1): string {
  const body = [`[0] RootWebArea '${title}' focused: True`, ...lines].map((line, i) =>
    line.replace(/^(\t*)\[\d*\]/, (_, tabs: string) => `${tabs}[${first + i}]`),
  );
  return [`Tab 0 (current): ${title}`, `URL: http://forum.test${path}`, '', ...body].join('\n');
}

const front = (titles: Array<[string, number]>, first = 1) =>
  page(
    'Front page — Forum',
    '/',
    [
      "\t[] link 'Forums' url: http://forum.test/forums",
      "\t[] search ''",
      "\t\t[] searchbox 'Search'",
      "\t\t[] button 'Search'",
      "\t[] main ''",
      "\t\t[] heading 'Front page'",
      ...titles.flatMap(([title, score]) => [
        "\t\t[] article ''",
        `\t\t\t[] link '${title}' url: http://forum.test/f/jazz/${title.length}`,
        `\t\t\t[] StaticText '${score} points · by '`,
        "\t\t\t[] link 'amber_heron' url: http://forum.test/user/amber_heron",
      ]),
    ],
    first,
  );

const post = (title: string, score: number, voted: boolean, notice?: string) =>
  page(`${title} — Forum`, `/f/jazz/${title.length}`, [
    "\t[] main ''",
    ...(notice
      ? ["\t\t[] status '' live: polite atomic: True", `\t\t\t[] StaticText '${notice}'`]
      : []),
    `\t\t[] heading '${title}'`,
    `\t\t[] StaticText 'Score: ${score}'`,
    "\t\t[] link 'f/jazz' url: http://forum.test/f/jazz",
    "\t\t[] form ''",
    `\t\t\t[] button 'Upvote' pressed: ${voted}`,
    "\t\t\t[] textbox 'Add a comment' required: True",
    "\t\t\t[] button 'Post comment'",
    "\t\t[] link 'Reply to amber_heron' url: http://forum.test/comment/5/reply",
  ]);

const REED = 'Is a borrowed saxophone reed worth it';

describe('the web quality lens', () => {
  it('a revisited, unchanged URL is a passed check', () => {
    const t = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['go_back', front([[REED, 441]])],
      ['click [9]', post(REED, 441, false)],
    ]);
    expect(consistencyChecks(t, webLens)).toEqual({ checks: 4, consistent: 4 });
  });

  it('a revisited URL that shows other content is a failed check', () => {
    const t = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['go_back', front([[REED, 442]])],
    ]);
    const c = consistencyChecks(t, webLens);
    expect(c.checks).toBeGreaterThan(c.consistent);
  });

  it('element ids are numbering: the same content under other ids is consistent', () => {
    const t = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['goto [http://forum.test/]', front([[REED, 441]], 40)],
    ]);
    expect(consistencyChecks(t, webLens)).toEqual({ checks: 2, consistent: 2 });
  });

  it('a vote changes the site: the pages after it are not held to what was shown before', () => {
    // Ids: the front page's first post link is 9; the post page's Upvote 7, its comment field 8.
    const t = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['click [7]', post(REED, 442, true, 'Your vote was counted.')],
      ['goto [http://forum.test/]', front([[REED, 442]])],
      ['click [9]', post(REED, 442, true)],
    ]);
    // Only the revisit after the vote is checked (the post page, and its comment field); the
    // notice the vote showed once is no content of the page.
    expect(consistencyChecks(t, webLens)).toEqual({ checks: 2, consistent: 2 });
    const unchanged = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['scroll [down]', post(REED, 441, false, 'Your vote was counted.')],
      ['goto [http://forum.test/]', front([[REED, 442]])],
    ]);
    // Without a vote, a score that moved is a contradiction.
    const c = consistencyChecks(unchanged, webLens);
    expect(c.checks - c.consistent).toBe(1);
  });

  it('following links and searching change nothing', () => {
    const t = episode(front([[REED, 441]]), [
      ['type [4] [reed] [1]', page('Search: reed — Forum', '/search?q=reed', ["\t[] main ''"])],
      ['goto [http://forum.test/]', front([[REED, 442]])],
    ]);
    const c = consistencyChecks(t, webLens);
    expect(c.checks - c.consistent).toBe(1);
  });

  it('a typed value is the field fact until the page loads again', () => {
    const typed = (value: string) =>
      post(REED, 441, false).replace(
        "'Add a comment' required: True",
        `'Add a comment' value: ${value} required: True`,
      );
    const forgot = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['type [8] [nice reed] [0]', typed('nice reed')],
      ['scroll [down]', post(REED, 441, false)],
    ]);
    const checks = consistencyChecks(forgot, webLens);
    // The scroll's page keeps its content but loses the typed value: one failed field check.
    expect(checks.checks - checks.consistent).toBe(1);
    const left = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['type [8] [nice reed] [0]', typed('nice reed')],
      ['click [5]', page('jazz — Forum', '/f/jazz', ["\t[] main ''"])],
      ['go_back', post(REED, 441, false)],
    ]);
    const after = consistencyChecks(left, webLens);
    expect(after.checks).toBe(after.consistent);
  });

  it('entities: post titles, user and forum names, the page subject; not labels, prices or ids', () => {
    const entities = webLens.entities(post(REED, 441, false));
    expect(entities).toEqual([REED, 'f/jazz']);
    expect(webLens.entities(front([[REED, 441]]))).toEqual(['Front page', REED, 'amber_heron']);
    const store = page('Order #000000819 — Store Admin', '/admin/orders/720', [
      "\t[] link 'Orders' url: http://forum.test/admin/orders",
      "\t[] main ''",
      "\t\t[] heading 'Order #000000819'",
      "\t\t[] link 'Back to orders' url: http://forum.test/admin/orders",
      "\t\t[] cell 'Fjord Canvas Skillet'",
      "\t\t\t[] link 'Fjord Canvas Skillet' url: http://forum.test/admin/products/1",
      "\t\t[] cell 'KIT-3595'",
      "\t\t[] cell '$30.50'",
      "\t\t[] cell '555-212-8028'",
    ]);
    expect(webLens.entities(store)).toEqual([
      'Order #000000819',
      'Fjord Canvas Skillet',
      'KIT-3595',
    ]);
  });

  it('a post title that neither the buffer nor an earlier step showed is hallucinated', () => {
    const buffer = [episode(front([[REED, 441]]), [['click [9]', post(REED, 441, false)]])];
    const vocabulary = entityVocabulary(buffer, webLens);
    const invented = 'Ten reasons my tuba is haunted';
    const t = episode(front([[REED, 441]]), [
      ['click [9]', post(REED, 441, false)],
      ['go_back', front([[invented, 1]])],
      ['click [9]', post(invented, 1, false)],
    ]);
    const h = hallucinatedEntities(t, webLens, vocabulary);
    expect(h.hallucinated).toEqual([invented]);
    expect(h.entities).toContain(REED);
  });

  it('reads only text: it never imports the browser env or the sites', () => {
    const seen = moduleGraph([join(import.meta.dirname, 'web-lens.ts')]);
    expect(realEnvModules(seen)).toEqual([]);
    expect([...seen].some((f) => f.endsWith('/envs/formats/web-tree.ts'))).toBe(true);
  });
});
