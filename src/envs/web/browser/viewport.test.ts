import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import type { Task } from '../../../core/types.ts';
import { type SharedTestSite, startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { findElement, testSiteTasks } from '../testing/test-site-tasks.ts';
import type { BrowserEnv } from './browser-env.ts';

/** A real Chromium (the shared browser: a missing one fails with the fix) on the test site. */

const home = testSiteTasks()
  .tasks('train')
  .concat(testSiteTasks().tasks('test'))
  .find((t) => t.id === 'testsite/contact') as Task;

let site: SharedTestSite;
let visible: BrowserEnv;
let whole: BrowserEnv;

beforeAll(async () => {
  site = await startSharedTestSite();
  visible = testSiteEnv(site, { viewport: 'visible' });
  whole = testSiteEnv(site);
});
afterAll(async () => {
  await visible?.close();
  await whole?.close();
  await site?.close();
});

/** Opens a product page (a heading, a price, 3000 px of description, then "End of page."). */
async function productPage(env: BrowserEnv): Promise<string> {
  await env.reset({ task: home });
  return (await env.step('goto [/products/1]')).observation.text;
}

describe("viewport: 'visible' shows what is in view, as WebArena's experiments do", () => {
  it('the whole document by default; only the top of a long page in view', async () => {
    const all = await productPage(whole);
    expect(all).toContain("StaticText 'End of page.'");
    const top = await productPage(visible);
    expect(top).toMatch(/\[\d+\] heading '/);
    expect(top).toContain("StaticText 'Price: ");
    expect(top).not.toContain('End of page.');
    expect(top.split('\n').length).toBeLessThan(all.split('\n').length);
  });

  it('scroll changes what is seen; an element out of view cannot be named', async () => {
    const top = await productPage(visible);
    const heading = Number(/\[(\d+)\] heading '/.exec(top)?.[1]);
    let text = top;
    for (let i = 0; i < 8 && !text.includes('End of page.'); i++) {
      text = (await visible.step('scroll [down]')).observation.text;
    }
    expect(text).toContain("StaticText 'End of page.'");
    expect(text).not.toMatch(/\] heading '/);
    const hidden = await visible.step(`click [${heading}]`);
    expect(hidden.info.invalidAction).toContain(`there is no element [${heading}]`);
    const back = (await visible.step('scroll [up]')).observation.text;
    expect(back).not.toContain('End of page.');
  });

  it('refuses a viewport it does not know, naming both options', () => {
    expect(() =>
      testSiteEnv(site, { viewport: { width: 800, height: 600 } as unknown as 'whole' }),
    ).toThrow(ConfigError);
    expect(() =>
      testSiteEnv(site, { viewport: { width: 800, height: 600 } as unknown as 'whole' }),
    ).toThrow(/'whole' or 'visible'.*viewportSize/);
  });
});

describe('a multi-line field value stays on its line', () => {
  it('typing with Enter into a textarea escapes the line break in value:', async () => {
    let { observation } = await whole.reset({ task: home });
    observation = (await whole.step('goto [/contact]')).observation;
    const message = findElement(observation.text, 'textbox', 'Message') as number;
    expect(message).toBeGreaterThan(0);
    observation = (await whole.step(`type [${message}] [hello world] [1]`)).observation;
    const tree = observation.text.split('\n\n').slice(1).join('\n\n');
    for (const line of tree.split('\n')) expect(line).toMatch(/^\t*\[\d+\] \S/);
    expect(tree).toMatch(
      new RegExp(`\\[${message}\\] textbox 'Message' value: hello world\\\\n focused: True`),
    );
  });
});
