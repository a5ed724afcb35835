import { Hono } from 'hono';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockLlm } from '../../../llm/mock-llm.ts';
import { type LaunchedBrowser, launchChromium } from '../browser/chromium.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from './config.ts';
import { evaluateTask, makeEvaluator } from './evaluate.ts';
import type { TaskEvaluator } from './evaluator.ts';
import { redditPostUrl, unescapeHtml } from './program-html.ts';
import { type ServedApp, serveApp } from './testing/serve-app.ts';

/** A tiny forum-like site whose pages the checks below read. */
function testSite(): Hono {
  const app = new Hono();
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  app.get('/', (c) => c.html(page('Home', '<h1>Forum</h1><a href="/f/books">Books</a>')));
  app.get('/search', (c) =>
    c.html(page('Search', `<h1>Results for ${c.req.query('q') ?? ''}</h1>`)),
  );
  const post = page(
    'Harry Potter meetup',
    '<div class="submission__inner"><h1>Harry Potter meetup</h1><p>Virtual meetup on July 8th &amp; 9th</p></div>',
  );
  for (const path of ['/f/books/12/', '/f/books/12/:slug']) app.get(path, (c) => c.html(post));
  app.get('/f/books/12/:slug/comment/:id', (c) =>
    c.html(page('Comment', '<p class="comment">A comment on the meetup</p>')),
  );
  app.get('/compose', (c) =>
    c.html(page('Compose', '<textarea title="What is on your mind?"></textarea>')),
  );
  app.get('/members', (c) =>
    c.html(
      page(
        'Members',
        `<table>${[
          ['@byteblaze', 'Owner'],
          ['@yjlou', 'Developer'],
        ]
          .map(
            ([account, role]) =>
              `<tr><td data-label="Account"><span class="gl-avatar-labeled-sublabel">${account}</span></td><td class="col-max-role"><span>${role}</span></td></tr>`,
          )
          .join('')}</table>`,
      ),
    ),
  );
  // Content that arrives after the load event, as in admin grids filled by XHR.
  app.get('/late', (c) =>
    c.html(
      page(
        'Late',
        `<div id="grid">loading</div><script>setTimeout(() => fetch('/late/data').then((r) => r.text()).then((t) => { document.getElementById('grid').textContent = t; }), 100);</script>`,
      ),
    ),
  );
  app.get('/late/data', (c) => c.text('Order #000000180: refund requested'));
  return app;
}

let browser: LaunchedBrowser;
let site: ServedApp;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // No browser is a failure naming the fix (BrowserNotFoundError), never a skip.
  browser = await launchChromium();
  site = await serveApp(testSite());
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});
beforeEach(async () => {
  context = await browser.browser.newContext();
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
});

/** A config with these eval fields; URLs use `SITE`, replaced by the test site's URL. */
function config(evaluation: Record<string, unknown>, intent = 'Do the task'): WebArenaConfig {
  const withUrl = JSON.parse(JSON.stringify(evaluation).replaceAll('SITE', site.url));
  return WebArenaConfigSchema.parse({
    task_id: 1,
    sites: ['reddit'],
    start_url: site.url,
    intent,
    eval: withUrl,
  });
}

async function run(
  evaluation: Record<string, unknown>,
  answer: string | undefined,
  evaluator: TaskEvaluator = evaluateTask,
) {
  return evaluator({ config: config(evaluation), page, context, answer });
}

describe('string_match', () => {
  it("exact_match passes after WebArena's normalisation and fails otherwise", async () => {
    const evaluation = {
      eval_types: ['string_match'],
      reference_answers: { exact_match: 'Pittsburgh' },
    };
    const pass = await run(evaluation, '  "PITTSBURGH" ');
    expect(pass).toMatchObject({ reward: 1, undecided: false });
    expect(pass.checks).toEqual([
      expect.objectContaining({ check: 'string_match/exact_match', passed: true }),
    ]);
    const fail = await run(evaluation, 'Pittsburgh, PA');
    expect(fail).toMatchObject({ reward: 0, undecided: false });
    expect(fail.checks[0]?.detail).toContain('expected exactly "pittsburgh"');
  });

  it('must_include needs every entry, any of its |OR| alternatives', async () => {
    const evaluation = {
      eval_types: ['string_match'],
      reference_answers: { must_include: ['Joust Bag', 'nike |OR| adidas'] },
    };
    expect((await run(evaluation, 'hollister, Joust Bag and Adidas')).reward).toBe(1);
    const fail = await run(evaluation, 'hollister and Joust Bag');
    expect(fail.reward).toBe(0);
    expect(fail.checks[0]?.detail).toContain('lacks "nike" or "adidas"');
  });

  it('a lone one-character reference must be a whole word of the answer', async () => {
    const evaluation = { eval_types: ['string_match'], reference_answers: { must_include: ['0'] } };
    expect((await run(evaluation, 'There are 0 such comments')).reward).toBe(1);
    expect((await run(evaluation, 'There are 10 such comments')).reward).toBe(0);
  });

  it('an episode that ended without an answer fails string checks, saying so', async () => {
    const result = await run(
      { eval_types: ['string_match'], reference_answers: { exact_match: 'x' } },
      undefined,
    );
    expect(result.reward).toBe(0);
    expect(result.checks[0]?.detail).toContain('no answer');
  });

  it('fuzzy_match without a judge is undecided, never passed or failed', async () => {
    const evaluation = {
      eval_types: ['string_match'],
      reference_answers: { fuzzy_match: ['driving: 13min', 'walking: 1h 45min'] },
    };
    const result = await run(evaluation, 'Driving takes 13 minutes, walking 105 minutes.');
    expect(result).toMatchObject({ reward: 0, undecided: true });
    expect(result.checks[0]).toMatchObject({
      check: 'string_match/fuzzy_match',
      passed: undefined,
    });
    expect(result.checks[0]?.detail).toContain('needs an LLM judge');
  });

  it('fuzzy_match asks the judge once per fact; all must be "correct"', async () => {
    const evaluation = {
      eval_types: ['string_match'],
      reference_answers: { fuzzy_match: ['driving: 13min', 'walking: 1h 45min'] },
    };
    const yes = new MockLlm({ answers: () => ({ reasoning: 'same times', verdict: 'correct' }) });
    const pass = await run(
      evaluation,
      'Driving 13 min; walking 105 min.',
      makeEvaluator({ judge: yes }),
    );
    expect(pass).toMatchObject({ reward: 1, undecided: false });
    expect(yes.requests).toHaveLength(2);
    const prompt = yes.requests[1]?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain('walking: 1h 45min');
    expect(prompt).toContain("Agent's answer: driving 13 min; walking 105 min.");
    expect(yes.requests[0]?.schema).toBeDefined();

    const partly = new MockLlm({
      answers: [
        { reasoning: 'ok', verdict: 'correct' },
        { reasoning: 'walking time missing', verdict: 'partially correct' },
      ],
    });
    const fail = await run(evaluation, 'Driving 13 min.', makeEvaluator({ judge: partly }));
    expect(fail).toMatchObject({ reward: 0, undecided: false });
    expect(fail.checks[0]?.detail).toContain('partially correct');
  });

  it('a judge that fails leaves the check undecided', async () => {
    const broken = new MockLlm({ answers: [new Error('connection refused')] });
    const result = await run(
      { eval_types: ['string_match'], reference_answers: { fuzzy_match: ['13min'] } },
      '13 min',
      makeEvaluator({ judge: broken }),
    );
    expect(result).toMatchObject({ reward: 0, undecided: true });
    expect(result.checks[0]?.detail).toContain('connection refused');
  });

  it('N/A passes on the answer N/A, else the judge compares the reason with string_note', async () => {
    const evaluation = {
      eval_types: ['string_match'],
      reference_answers: { fuzzy_match: 'N/A' },
      string_note: 'There is no such forum',
    };
    expect((await run(evaluation, '"n/a"')).reward).toBe(1);
    expect(await run(evaluation, 'The forum does not exist')).toMatchObject({ undecided: true });
    const same = new MockLlm({ answers: [{ reasoning: 'agrees', verdict: 'same' }] });
    const judged = await run(
      evaluation,
      'The forum does not exist',
      makeEvaluator({ judge: same }),
    );
    expect(judged.reward).toBe(1);
    expect(same.requests[0]?.messages.at(-1)?.content).toContain('There is no such forum');
    const different = new MockLlm({
      answers: [{ reasoning: 'other reason', verdict: 'different' }],
    });
    expect(
      (await run(evaluation, 'I ran out of time', makeEvaluator({ judge: different }))).reward,
    ).toBe(0);
  });
});

describe('url_match', () => {
  const evaluation = {
    eval_types: ['url_match'],
    reference_url: 'SITE/search?q=pasta+sauce |OR| SITE/search/?q=pasta%20sauce',
    url_note: 'GOLD in PRED',
  };

  it('passes on the gold path with the gold query values, extra parameters allowed', async () => {
    await page.goto(`${site.url}/search?sort=new&q=pasta%20sauce`);
    const result = await run(evaluation, undefined);
    expect(result).toMatchObject({ reward: 1, undecided: false });
    expect(result.checks[0]).toMatchObject({ check: 'url_match', passed: true });
  });

  it('fails on another query value or another path', async () => {
    await page.goto(`${site.url}/search?q=pizza`);
    const wrongQuery = await run(evaluation, undefined);
    expect(wrongQuery.reward).toBe(0);
    expect(wrongQuery.checks[0]?.detail).toContain('query lacks q=pasta sauce');
    await page.goto(`${site.url}/?q=pasta+sauce`);
    expect((await run(evaluation, undefined)).reward).toBe(0);
  });
});

describe('program_html', () => {
  it('runs a locator on a page opened in a new tab of the context, then closes the tab', async () => {
    await page.goto(site.url);
    const check = (must: string[]) => ({
      eval_types: ['program_html'],
      program_html: [
        {
          url: 'SITE/f/books/12/harry-potter-meetup',
          locator: "document.querySelector('.submission__inner').outerText",
          required_contents: { must_include: must },
        },
      ],
    });
    const pass = await run(check(['Harry Potter', 'July 8th |OR| 8 July', '& 9th']), undefined);
    expect(pass).toMatchObject({ reward: 1, undecided: false });
    const fail = await run(check(['Harry Potter', 'August']), undefined);
    expect(fail.reward).toBe(0);
    expect(fail.checks[0]?.detail).toContain('lacks "August"');
    expect(context.pages()).toEqual([page]);
    expect(page.url()).toBe(`${site.url}/`);
  });

  it('reads the final page itself for `last`, with what the agent typed', async () => {
    await page.goto(`${site.url}/compose`);
    await page.fill('textarea', 'I want a REFUND: it broke after three days');
    const check = (contents: Record<string, unknown>) => ({
      eval_types: ['program_html'],
      program_html: [
        {
          url: 'last',
          locator: 'document.querySelector(\'[title="What is on your mind?"]\').value',
          required_contents: contents,
        },
      ],
    });
    expect((await run(check({ must_include: ['refund', 'three days'] }), undefined)).reward).toBe(
      1,
    );
    expect(
      (await run(check({ exact_match: 'i want a refund: it broke after three days' }), undefined))
        .reward,
    ).toBe(1);
    expect((await run(check({ exact_match: 'i want a refund' }), undefined)).reward).toBe(0);
    expect((await run(check({ must_exclude: ['refund'] }), undefined)).reward).toBe(0);
    expect((await run(check({ must_exclude: ['exchange'] }), undefined)).reward).toBe(1);
  });

  it('an empty locator reads the whole HTML; a locator on a missing element reads empty text', async () => {
    const evaluation = (locator: string, must: string) => ({
      eval_types: ['program_html'],
      program_html: [{ url: 'SITE/', locator, required_contents: { must_include: [must] } }],
    });
    expect((await run(evaluation('', '<a href="/f/books">'), undefined)).reward).toBe(1);
    const missing = await run(
      evaluation("document.querySelector('.nope').outerText", 'Forum'),
      undefined,
    );
    expect(missing).toMatchObject({ reward: 0, undecided: false });
  });

  it('waits for content that arrives after the load event', async () => {
    const result = await run(
      {
        eval_types: ['program_html'],
        program_html: [
          {
            url: 'SITE/late',
            locator: "document.querySelector('#grid').textContent",
            required_contents: { must_include: ['000000180'] },
          },
        ],
      },
      undefined,
    );
    expect(result.reward).toBe(1);
  });

  it("supports WebArena's page-only helpers: reddit_get_post_url and the GitLab member role", async () => {
    await page.goto(`${site.url}/f/books/12/harry-potter-meetup/comment/5`);
    const result = await run(
      {
        eval_types: ['program_html'],
        program_html: [
          {
            url: "func:reddit_get_post_url('__last_url__')",
            locator: "document.querySelector('.submission__inner').outerText",
            required_contents: { must_include: ['Harry Potter meetup'] },
          },
          {
            url: 'SITE/members',
            locator: "func:gitlab_get_project_memeber_role(__page__, 'yjlou')",
            required_contents: { must_include: ['Developer'] },
          },
          {
            url: 'SITE/members',
            locator: "func:gitlab_get_project_memeber_role(__page__, 'byteblaze')",
            required_contents: { must_include: ['Developer'] },
          },
        ],
      },
      undefined,
    );
    expect(result.checks.map((c) => c.passed)).toEqual([true, true, false]);
    expect(result.reward).toBe(0);
  });

  it('helpers needing WebArena site APIs, unknown locators and dead pages are undecided', async () => {
    await page.goto(site.url);
    const result = await run(
      {
        eval_types: ['program_html'],
        program_html: [
          {
            url: 'func:shopping_get_latest_order_url()',
            locator: '',
            required_contents: { must_include: ['x'] },
          },
          {
            url: 'last',
            locator: "func:shopping_get_sku_latest_review_author('MJ02')",
            required_contents: { must_include: ['x'] },
          },
          { url: 'last', locator: 'window.title', required_contents: { must_include: ['x'] } },
          { url: 'http://127.0.0.1:9/', locator: '', required_contents: { must_include: ['x'] } },
        ],
      },
      undefined,
    );
    expect(result).toMatchObject({ reward: 0, undecided: true });
    expect(result.checks.map((c) => c.passed)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(result.checks[0]?.detail).toContain('unsupported url helper');
    expect(result.checks[1]?.detail).toContain('unsupported locator helper');
    expect(result.checks[2]?.detail).toContain('unknown locator "window.title"');
    expect(result.checks[3]?.detail).toContain('could not open http://127.0.0.1:9/');
    expect(context.pages()).toEqual([page]);
  });
});

describe('several eval types', () => {
  it('rewards 1 only when every check of every type passes', async () => {
    await page.goto(`${site.url}/search?q=pasta`);
    const evaluation = (answer: string) => ({
      eval_types: ['string_match', 'url_match', 'program_html'],
      reference_answers: { must_include: [answer] },
      reference_url: 'SITE/search?q=pasta',
      program_html: [
        {
          url: 'last',
          locator: "document.querySelector('h1').outerText",
          required_contents: { exact_match: 'Results for pasta' },
        },
      ],
    });
    const pass = await run(evaluation('pasta'), 'I searched for pasta');
    expect(pass.reward).toBe(1);
    expect(pass.checks.map((c) => c.check)).toEqual([
      'string_match/must_include',
      'url_match',
      'program_html/exact_match',
    ]);
    const oneFails = await run(evaluation('pizza'), 'I searched for pasta');
    expect(oneFails.reward).toBe(0);
    expect(oneFails.checks.map((c) => c.passed)).toEqual([false, true, true]);
  });
});

describe('helpers', () => {
  it("reddit_get_post_url maps a comment URL to its post's, other URLs unchanged", () => {
    expect(redditPostUrl('http://h:9999/f/books/12/slug/comment/5')).toBe(
      'http://h:9999/f/books/12/',
    );
    expect(redditPostUrl('http://h:9999/forums')).toBe('http://h:9999/forums');
    expect(redditPostUrl('http://h:9999/user/x/y')).toBe('http://h:9999/user/x/y');
  });

  it('unescapes HTML entities as html.unescape does for the common ones', () => {
    expect(unescapeHtml('Tom &amp; Jerry &#39;s &#x41; &lt;b&gt; &copy;')).toBe(
      "Tom & Jerry 's A <b> &copy;",
    );
  });
});
