import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../core/types.ts';
import { type SharedTestSite, startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { findElement, testSiteTasks } from '../testing/test-site-tasks.ts';
import { type LaunchedBrowser, launchChromium } from './chromium.ts';

const contact = testSiteTasks()
  .tasks('test')
  .find((t) => t.id === 'testsite/contact') as Task;

let site: SharedTestSite;
let chromium: LaunchedBrowser;

beforeAll(async () => {
  site = await startSharedTestSite();
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
  await site?.close();
});

/** Two episodes on one env; what the second one sees of the first, and the contexts used. */
async function twoEpisodes(reuseContexts: boolean) {
  const env = testSiteEnv(site, { browser: chromium.browser, reuseContexts, maxSteps: 20 });
  try {
    const start = (await env.reset({ task: contact })).observation.text;
    const origin = /^URL: (http:\/\/[^/]+)/m.exec(start)?.[1] as string;
    const firstContext = chromium.browser.contexts()[0];
    const memory = async () => (await env.step(`goto [${origin}/memory]`)).observation.text;
    // The first episode leaves everything behind: storage, a cookie, a cached page, history, a tab.
    const firstVisit = await memory();
    const secondVisit = await memory();
    await env.step(`goto [${origin}/]`);
    const help = findElement(start, 'link', 'Help (new tab)') as number;
    const tabs = (await env.step(`click [${help}]`)).observation.text.split('\n')[0];

    const again = (await env.reset({ task: contact })).observation.text;
    const contexts = chromium.browser.contexts();
    const back = (await env.step('go_back')).observation.text;
    const backAgain = (await env.step('go_back')).observation.text;
    const next = await memory();
    return {
      start,
      firstVisit,
      secondVisit,
      tabs,
      again,
      back,
      backAgain,
      next,
      contexts,
      firstContext,
    };
  } finally {
    await env.close();
  }
}

const served = (text: string) => /served to (\S+)/.exec(text)?.[1];

describe('BrowserEnv: the next episode in a reused context', () => {
  for (const reuse of [true, false]) {
    it(`sees nothing of the previous episode (reuseContexts: ${reuse})`, async () => {
      const run = await twoEpisodes(reuse);
      // Within an episode the browser remembers (so the checks below could fail)…
      expect(run.firstVisit).toContain('cookie no, local no, session no');
      expect(run.secondVisit).toContain('cookie yes, local yes, session yes');
      expect(served(run.secondVisit)).toBe(served(run.firstVisit));
      expect(run.tabs).toBe('Tab 0: Test Site — Home | Tab 1 (current): Help');
      // …the next episode starts as a fresh context would: the same page, text and ids alike,
      // one tab, no history but the new tab's about:blank, no cookie or storage, nothing from the
      // HTTP cache.
      expect(run.again).toBe(run.start);
      expect(run.back.split('\n').slice(0, 2)).toEqual(['Tab 0 (current): ', 'URL: about:blank']);
      expect(run.backAgain).toBe(run.back);
      expect(run.next).toContain('cookie no, local no, session no');
      expect(served(run.next)).toBeDefined();
      expect(served(run.next)).not.toBe(served(run.firstVisit));
      expect(run.contexts).toHaveLength(1);
      if (reuse) expect(run.contexts[0]).toBe(run.firstContext);
      else expect(run.contexts[0]).not.toBe(run.firstContext);
    });
  }

  it('an episode in a reused context reads as one in a new context', async () => {
    const masked = (text: string) => text.replace(/served to \S+/, 'served to …');
    const [reused, fresh] = [await twoEpisodes(true), await twoEpisodes(false)];
    for (const key of ['again', 'back', 'backAgain', 'next'] as const) {
      expect(masked(reused[key])).toBe(masked(fresh[key]));
    }
  });

  it('closes the kept context with the env', async () => {
    const env = testSiteEnv(site, { browser: chromium.browser });
    await env.reset({ task: contact });
    await env.reset({ task: contact });
    expect(chromium.browser.contexts()).toHaveLength(1);
    await env.close();
    expect(chromium.browser.contexts()).toHaveLength(0);
  });
});
