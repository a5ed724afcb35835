/**
 * BrowserEnv speed on the in-process test site, in one shared Chromium: reset latency (in the
 * previous episode's context, cleaned, as by default, and in a new context), step
 * latency with the tree rendered (click on a link that loads a page, click on a button that
 * changes the page in place, type, scroll), observation size, and steps/s with 1, 4 and 8
 * episodes running in parallel (each its own context). Goal (issue 14): step p50 < 60 ms.
 */
import { loadavg } from 'node:os';
import type { BrowserEnv } from '../src/envs/web/browser/browser-env.ts';
import { startSharedTestSite, testSiteEnv } from '../src/envs/web/testing/fixtures.ts';
import { findElement, testSiteTasks } from '../src/envs/web/testing/test-site-tasks.ts';
import { measure } from './measure.ts';

const task = testSiteTasks()
  .tasks('test')
  .find((t) => t.id === 'testsite/contact');

const idOf = (text: string, role: string, name: string) => {
  const id = findElement(text, role, name);
  if (id === undefined) throw new Error(`no ${role} '${name}' on the page:\n${text}`);
  return id;
};

/** One step of a fixed mixed cycle (navigate, type, scroll, back), for throughput. */
async function cycleStep(env: BrowserEnv, i: number, text: string): Promise<string> {
  const actions = [
    () => `click [${idOf(text, 'link', 'Products')}]`,
    () => `type [${idOf(text, 'searchbox', 'Search products')}] [kettle ${i}] [0]`,
    () => 'scroll [down]',
    () => `click [${idOf(text, 'link', 'Home')}]`,
  ];
  const result = await env.step((actions[i % actions.length] as () => string)());
  return result.observation.text;
}

export default async function browserBench() {
  const site = await startSharedTestSite();
  const env = testSiteEnv(site, { maxSteps: 1_000_000 });
  try {
    const reset = await measure(() => env.reset({ task }), { warmup: 3, iterations: 30 });
    const fresh = testSiteEnv(site, { maxSteps: 1_000_000, reuseContexts: false });
    const resetNewContext = await measure(() => fresh.reset({ task }), {
      warmup: 3,
      iterations: 30,
    }).finally(() => fresh.close());
    const home = (await env.reset({ task })).observation.text;

    // A link click that loads another page, alternating Products and Home.
    let text = home;
    const clickNavigate = await measure(
      async (i) => {
        const target = i % 2 === 0 ? 'Products' : 'Home';
        text = (await env.step(`click [${idOf(text, 'link', target)}]`)).observation.text;
      },
      { warmup: 4, iterations: 60 },
    );

    // A button click handled by the page's script (no navigation): the tree grows in place.
    text = (await env.reset({ task })).observation.text;
    const more = idOf(text, 'button', 'Show more');
    const clickInPage = await measure(() => env.step(`click [${more}]`), {
      warmup: 4,
      iterations: 60,
    });

    text = (await env.step(`click [${idOf(text, 'link', 'Products')}]`)).observation.text;
    const search = idOf(text, 'searchbox', 'Search products');
    const type = await measure((i) => env.step(`type [${search}] [kettle ${i}] [0]`), {
      warmup: 4,
      iterations: 60,
    });
    const products = text;
    text = (await env.step(`click [${idOf(text, 'link', 'Contact')}]`)).observation.text;
    const contact = text;
    const scroll = await measure((i) => env.step(i % 2 === 0 ? 'scroll [down]' : 'scroll [up]'), {
      warmup: 4,
      iterations: 60,
    });

    const parallel: Record<string, unknown> = {};
    for (const episodes of [1, 4, 8]) {
      const envs = Array.from({ length: episodes }, () =>
        testSiteEnv(site, { maxSteps: 1_000_000 }),
      );
      try {
        const texts = await Promise.all(
          envs.map(async (e) => (await e.reset({ task })).observation.text),
        );
        const stepsEach = 40;
        const started = performance.now();
        await Promise.all(
          envs.map(async (e, k) => {
            let current = texts[k] as string;
            for (let i = 0; i < stepsEach; i++) current = await cycleStep(e, i, current);
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        parallel[`${episodes}`] = {
          steps: stepsEach * episodes,
          seconds,
          stepsPerSecond: (stepsEach * episodes) / seconds,
        };
        console.log(
          `${episodes} parallel: ${((stepsEach * episodes) / seconds).toFixed(1)} steps/s`,
        );
      } finally {
        await Promise.all(envs.map((e) => e.close()));
      }
    }

    const results = {
      // Other work on the machine slows a browser a lot: read the figures against this.
      loadAverage1m: loadavg()[0],
      resetMs: reset,
      resetNewContextMs: resetNewContext,
      stepMs: { clickNavigate, clickInPage, type, scroll },
      observationChars: { home: home.length, products: products.length, contact: contact.length },
      parallelStepsPerSecond: parallel,
    };
    const p = (m: { median: number; p90: number }) =>
      `p50 ${m.median.toFixed(1)} ms p90 ${m.p90.toFixed(1)} ms`;
    console.log(
      `reset ${p(reset)}\nreset in a new context ${p(resetNewContext)}\nclick (navigate) ${p(clickNavigate)}\nclick (in page) ${p(clickInPage)}\n` +
        `type ${p(type)}\nscroll ${p(scroll)}\nobservation chars: home ${home.length}, ` +
        `products ${products.length}, contact ${contact.length}`,
    );
    return results;
  } finally {
    await env.close();
    await site.close();
  }
}
