import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeEndedError, TaskError } from '../../../core/errors.ts';
import type { Task } from '../../../core/types.ts';
import { type SharedTestSite, startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { findElement, TEST_SITE_ENV, testSiteTasks } from '../testing/test-site-tasks.ts';
import type { BrowserEnv } from './browser-env.ts';
import { BrowserCrashedError } from './browser-episode.ts';
import { sharedBrowserHolders, sharedBrowserPid } from './shared-browser.ts';

const all = [...testSiteTasks().tasks('test'), ...testSiteTasks().tasks('train')];
const task = (id: string) => all.find((t) => t.id === `testsite/${id}`) as Task;

let site: SharedTestSite;
let env: BrowserEnv;

beforeAll(async () => {
  site = await startSharedTestSite({ slowMs: 8000 });
  env = testSiteEnv(site, { actionTimeoutMs: 20_000, maxSteps: 12 });
});
afterAll(async () => {
  await env?.close();
  await site?.close();
});

/** The id of an element on the current observation, failing the test when it is missing. */
const id = (text: string, role: string, name: string) => {
  const found = findElement(text, role, name);
  expect(found, `${role} '${name}' in\n${text}`).toBeDefined();
  return found as number;
};

describe('BrowserEnv on a real Chromium', () => {
  it("renders the home page's tree as WebArena text, with tabs and URL on top", async () => {
    const { observation } = await env.reset({ task: task('contact') });
    const lines = observation.text.split('\n');
    expect(lines[0]).toBe('Tab 0 (current): Test Site — Home');
    expect(lines[1]).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(lines[2]).toBe('');
    expect(lines[3]).toBe("[1] RootWebArea 'Test Site — Home' focused: True");
    expect(lines.slice(4, 8).map((l) => l.replace(/ url: .*/, ''))).toEqual([
      "\t[2] link 'Home'",
      "\t[3] link 'Products'",
      "\t[4] link 'Contact'",
      "\t[5] link 'Settings'",
    ]);
    expect(observation.text).toMatch(/\t\t\[\d+\] heading 'Welcome'/);
    expect(observation.text).toMatch(/\t\t\[\d+\] button 'Show more'/);
    expect(observation.actions).toContain('click [3]');
    expect(observation.actions).toContain('stop [<answer>]');
    expect(observation.actions).toContain('scroll [down]');
  });

  it('the same page gets the same ids in another episode; ids stay put when the page grows', async () => {
    const first = (await env.reset({ task: task('contact') })).observation.text;
    const again = (await env.reset({ task: task('price-1') })).observation.text;
    expect(again).toBe(first);
    const more = id(again, 'button', 'Show more');
    const grown = (await env.step(`click [${more}]`)).observation.text;
    const before = again.split('\n').slice(3);
    for (const line of before) expect(grown).toContain(line.replace(/ focused: True/, ''));
    const added = id(grown, 'link', 'All products');
    expect(added).toBeGreaterThan(
      Math.max(...[...again.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]))),
    );
  });

  it('types into fields, picks select options by label, ticks checkboxes, submits with Enter', async () => {
    let { observation } = await env.reset({ task: task('message-0') });
    observation = (await env.step(`click [${id(observation.text, 'link', 'Contact')}]`))
      .observation;
    const name = id(observation.text, 'textbox', 'Your name');
    observation = (await env.step(`type [${name}] [Ada] [0]`)).observation;
    expect(observation.text).toMatch(new RegExp(`\\[${name}\\] textbox 'Your name' value: Ada`));
    const topic = id(observation.text, 'combobox', 'Topic');
    observation = (await env.step(`type [${topic}] [returns] [0]`)).observation;
    expect(observation.text).toMatch(new RegExp(`\\[${topic}\\] combobox 'Topic' value: Returns`));
    const wrong = await env.step(`type [${topic}] [Refunds]`);
    expect(wrong.info.invalidAction).toContain('General, Orders, Returns');
    const subscribe = id(observation.text, 'checkbox', 'Subscribe to news');
    observation = (await env.step(`click [${subscribe}]`)).observation;
    expect(observation.text).toMatch(
      new RegExp(`\\[${subscribe}\\] checkbox 'Subscribe to news'.* checked: true`),
    );
    const notText = await env.step(`type [${subscribe}] [x]`);
    expect(notText.info.invalidAction).toContain('not a text field');
    const body = id(observation.text, 'textbox', 'Message');
    observation = (await env.step(`type [${body}] [Hello there] [0]`)).observation;
    // Enter in the name field submits the form (press_enter_after=1).
    const sent = await env.step(`type [${name}] [Ada Lovelace] [1]`);
    expect(sent.info.invalidAction).toBeUndefined();
    expect(sent.observation.text).toMatch(/^URL: .*\/messages$/m);
    expect(sent.observation.text).toContain(
      "StaticText 'Ada Lovelace (Returns, subscribed): Hello there'",
    );
  });

  it('hover, press, scroll, go_back and go_forward run', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    expect((await env.step(`hover [${id(observation.text, 'link', 'Products')}]`)).info).toEqual(
      {},
    );
    const products = await env.step(`click [${id(observation.text, 'link', 'Products')}]`);
    expect(products.observation.text).toMatch(/^URL: .*\/products$/m);
    const search = id(products.observation.text, 'searchbox', 'Search products');
    await env.step(`type [${search}] [Kettle] [0]`);
    const pressed = await env.step('press [Enter]');
    expect(pressed.observation.text).toMatch(/^URL: .*\/products\?q=Kettle$/m);
    const scrolled = await env.step('scroll [down]');
    expect(scrolled.info.invalidAction).toBeUndefined();
    expect((await env.step('go_back')).observation.text).toMatch(/^URL: .*\/products$/m);
  });

  it('go_back and go_forward move through history', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    await env.step(`click [${id(observation.text, 'link', 'Settings')}]`);
    expect((await env.step('go_back')).observation.text).toMatch(/^URL: .*\/$/m);
    expect((await env.step('go_forward')).observation.text).toMatch(/^URL: .*\/settings$/m);
  });

  it('a target=_blank link opens a second tab that becomes current; tab_focus and close_tab', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    const help = await env.step(`click [${id(observation.text, 'link', 'Help (new tab)')}]`);
    expect(help.observation.text.split('\n')[0]).toBe(
      'Tab 0: Test Site — Home | Tab 1 (current): Help',
    );
    expect(help.observation.actions).toContain('tab_focus [0]');
    expect(help.observation.actions).toContain('close_tab');
    const back = await env.step('tab_focus [0]');
    expect(back.observation.text.split('\n')[0]).toBe(
      'Tab 0 (current): Test Site — Home | Tab 1: Help',
    );
    expect((await env.step('tab_focus [5]')).info.invalidAction).toContain('no tab 5');
    const closed = await env.step('close_tab');
    expect(closed.observation.text.split('\n')[0]).toBe('Tab 0 (current): Help');
    const opened = await env.step('new_tab');
    expect(opened.observation.text.split('\n').slice(0, 2)).toEqual([
      'Tab 0: Help | Tab 1 (current): ',
      'URL: about:blank',
    ]);
  });

  it('goto: the task sites only; a relative URL resolves against the page', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    const origin = /^URL: (http:\/\/[^/]+)/m.exec(observation.text)?.[1] as string;
    const refused = await env.step('goto [http://example.com/]');
    expect(refused.info.invalidAction).toContain('not one of this task');
    expect(refused.observation).toEqual(observation);
    expect((await env.step(`goto [${origin}/settings]`)).observation.text).toMatch(
      /^URL: .*\/settings$/m,
    );
    expect((await env.step('goto [/contact]')).observation.text).toMatch(/^URL: .*\/contact$/m);
  });

  it('failed navigations are observations: 404 page, refused connection, timeout', async () => {
    const impatient = testSiteEnv(site, { navigationTimeoutMs: 4000 });
    try {
      const { observation } = await impatient.reset({ task: task('contact') });
      const broken = await impatient.step(`click [${id(observation.text, 'link', 'Broken link')}]`);
      expect(broken.observation.text).toContain("heading '404: page not found'");
      await impatient.step('go_back');
      const dead = await impatient.step(`click [${id(observation.text, 'link', 'Dead server')}]`);
      expect(dead.info.invalidAction).toBeUndefined();
      // Said in the Error line, whichever Chromium shows its (possibly empty) error page.
      expect(dead.observation.text).toMatch(
        /^Error: loading http:\/\/\S+ failed: net::ERR_CONNECTION_REFUSED$/m,
      );
      await impatient.step('go_back');
      const started = Date.now();
      const slow = await impatient.step(`click [${id(observation.text, 'link', 'Slow page')}]`);
      expect(Date.now() - started).toBeLessThan(7500);
      expect(slow.observation.text).toMatch(/^Error: loading the page timed out after 4000 ms$/m);
      expect(slow.observation.text).toContain("heading 'Welcome'");
      const next = await impatient.step('scroll [down]');
      expect(next.observation.text).not.toContain('Error:');
    } finally {
      await impatient.close();
    }
  });

  it('waits for a navigation a click starts a task later; a click on an element with no box is refused', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    const home = /^URL: (\S+)/m.exec(observation.text)?.[1] as string;
    const page = (await env.step(`goto [${new URL('/scripted', home)}]`)).observation.text;
    const later = await env.step(`click [${id(page, 'button', 'Go later')}]`);
    expect(later.info.invalidAction).toBeUndefined();
    expect(later.observation.text).toContain("heading 'Finally'");
    const back = (await env.step('go_back')).observation.text;
    expect(back).toContain("heading 'Scripted'");
    const boxless = await env.step(`click [${id(back, 'link', 'Boxless help')}]`);
    expect(boxless.info.invalidAction).toContain('not visible');
    expect(boxless.observation.text).toContain("heading 'Scripted'");
  });

  it('invalid actions and unknown ids change nothing, earn 0 and say why', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    for (const action of ['click [999]', 'click [abc]', 'type [999] [x]', 'jump']) {
      const result = await env.step(action);
      expect(result.reward).toBe(0);
      expect(result.info.invalidAction, action).toBeTruthy();
      expect(result.observation).toEqual(observation);
    }
  });

  it('stop evaluates the answer and terminates; stepping after the end is an error', async () => {
    await env.reset({ task: task('price-1') });
    const wrong = await env.step('stop [$0.01]');
    expect(wrong).toMatchObject({ reward: 0, terminated: true, truncated: false });
    expect(wrong.info.evaluation).toMatchObject({ reward: 0, undecided: false });
    await expect(env.step('go_back')).rejects.toBeInstanceOf(EpisodeEndedError);
  });

  it('the step limit truncates and still evaluates the final state, with no answer', async () => {
    const short = testSiteEnv(site, { maxSteps: 3 });
    try {
      const { observation } = await short.reset({ task: task('contact') });
      let last = await short.step(`click [${id(observation.text, 'link', 'Contact')}]`);
      expect(last.truncated).toBe(false);
      last = await short.step('scroll [down]');
      expect(last.truncated).toBe(false);
      last = await short.step('click [999]');
      expect(last).toMatchObject({ reward: 1, terminated: false, truncated: true });
      expect(last.info).toMatchObject({ truncatedBy: 'time-limit', answer: undefined });
      expect(last.info.invalidAction).toContain('no element [999]');
      expect(last.info.evaluation).toMatchObject({ reward: 1 });
    } finally {
      await short.close();
    }
  });

  it('refuses tasks of another env or without a valid WebArena config', async () => {
    const good = task('contact');
    await expect(env.reset({ task: { ...good, env: 'webshop' } })).rejects.toThrow(
      /is for env "webshop"/,
    );
    await expect(env.reset({ task: { ...good, spec: { intent: 'x' } } })).rejects.toBeInstanceOf(
      TaskError,
    );
    await expect(
      env.reset({ task: { ...good, spec: { ...good.spec, start_url: '' } } }),
    ).rejects.toThrow(/start_url/);
  });

  it('four envs run episodes in parallel in one browser, each in its own context', async () => {
    const envs = [0, 1, 2, 3].map(() => testSiteEnv(site, { actionTimeoutMs: 20_000 }));
    try {
      const pid = await (async () => {
        await envs[0]?.reset({ task: task('contact') });
        return sharedBrowserPid();
      })();
      const results = await Promise.all(
        envs.map(async (e, i) => {
          const t = task(`message-${i}`);
          let { observation } = await e.reset({ task: t });
          observation = (await e.step(`click [${id(observation.text, 'link', 'Contact')}]`))
            .observation;
          const body = id(observation.text, 'textbox', 'Message');
          await e.step(`type [${body}] [note ${i}] [0]`);
          const send = await e.step(`click [${id(observation.text, 'button', 'Send')}]`);
          return `${send.observation.text}\n${JSON.stringify(send.info)}`;
        }),
      );
      for (const [i, text] of results.entries()) {
        // Each episode sees only its own message: a private copy of the site's state.
        expect(text).toContain(`note ${i}`);
        for (let j = 0; j < 4; j++) if (j !== i) expect(text).not.toContain(`note ${j}`);
      }
      expect(await sharedBrowserPid()).toBe(pid);
    } finally {
      await Promise.all(envs.map((e) => e.close()));
    }
  });

  it('a crashed browser: the step is a clear error, the next reset relaunches it', async () => {
    const { observation } = await env.reset({ task: task('contact') });
    const pid = (await sharedBrowserPid()) as number;
    process.kill(pid, 'SIGKILL');
    // Until Playwright sees the pipe close, the browser still counts as connected.
    for (let i = 0; i < 100 && (await sharedBrowserPid().catch(() => undefined)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await expect(env.step(`click [${id(observation.text, 'link', 'Products')}]`)).rejects.toThrow(
      BrowserCrashedError,
    );
    const again = await env.reset({ task: task('contact') });
    expect(again.observation.text).toContain("link 'Products'");
    expect(await sharedBrowserPid()).not.toBe(pid);
    expect(sharedBrowserHolders()).toBeGreaterThan(0);
    expect(env.name).toBe(TEST_SITE_ENV);
  });
});
