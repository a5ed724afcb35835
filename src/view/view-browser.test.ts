import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';
import { type LaunchedBrowser, launchChromium } from '../envs/web/browser/chromium.ts';
import { type ListeningViewer, listenViewer } from './listen-viewer.ts';
import { viewTarget } from './view-target.ts';
import { createViewer } from './viewer.ts';

/**
 * `dreamgym view` in a real Chromium over a run made by a tiny `dreamgym run` (offline data on
 * every train task, so each synthetic episode's task also has a real one). Without a browser
 * these tests fail with the launcher's message, which names the fix. With
 * DREAMGYM_VIEW_SCREENSHOTS=1 each view's screenshot is written to docs/img/ for the README.
 */
const SCREENSHOTS =
  process.env.DREAMGYM_VIEW_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '..', '..', 'docs', 'img')
    : mkdtempSync(join(tmpdir(), 'dg-view-shots-'));

describe('dreamgym view in a real browser', () => {
  let runDir: string;
  let browser: LaunchedBrowser;
  let served: ListeningViewer;
  let page: Page;
  let bufferHash: string;

  const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-view-'));
    runDir = join(dir, 'run');
    const config = join(dir, 'tiny.json');
    writeFileSync(
      config,
      JSON.stringify({
        env: 'webshop',
        seed: 1,
        offline: { episodes: 1000 },
        experienceModel: { writeBack: true },
        train: { iterations: 3, tasksPerIteration: 3, groupSize: 3, epochs: 1 },
        evaluation: { episodes: 6, every: 1 },
      }),
    );
    const run = await runCliInProcess(['run', config, '--out', runDir]);
    expect(run.stderr + run.stdout).toContain('report:');
    bufferHash = hash(join(runDir, 'buffer.db'));
    browser = await launchChromium();
    served = await listenViewer(await createViewer({ target: viewTarget(runDir), pollMs: 200 }), {
      port: 0,
    });
    const context = await browser.browser.newContext({ viewport: { width: 1360, height: 900 } });
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const shot = async (name: string) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.evaluate('window.scrollTo(0, 0)');
    return page.screenshot({ path: join(SCREENSHOTS, `view-${name}.png`) });
  };

  it('shows the run dashboard with its learning curve, curriculum, config and versions', async () => {
    await page.goto(`${served.url}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await page.locator('#success-curve svg').waitFor();
    expect(await page.locator('#success-curve svg').textContent()).toContain(
      'held-out real success',
    );
    expect(await page.locator('#card-iterations .value').textContent()).toBe('3');
    expect(await page.locator('#curriculum tbody tr').count()).toBe(3);
    expect(await page.locator('#config').textContent()).toContain('"writeBack": true');
    expect(await page.locator('#versions').textContent()).toContain('better-sqlite3');
    await page.locator('#live-dot.on').waitFor();
    await shot('dashboard');
  });

  it('filters to synthetic failures, opens one and steps through it with the keyboard', async () => {
    await page.goto(`${served.url}/episodes`);
    const total = Number(
      (await page.locator('#episode-count strong').textContent())?.replace(/,/g, ''),
    );
    expect(total).toBeGreaterThan(1000);
    await page.selectOption('select[name=provenance]', 'synthetic');
    await page.waitForURL(/provenance=synthetic/);
    await page.selectOption('select[name=outcome]', 'failure');
    await page.waitForURL(/outcome=failure/);
    const rows = page.locator('#episodes tr.episode');
    const shown = await rows.count();
    expect(shown).toBeGreaterThan(0);
    for (let i = 0; i < shown; i++) {
      expect(await rows.nth(i).locator('.tag').first().textContent()).toBe('synthetic');
      expect(await rows.nth(i).locator('.tag').nth(1).textContent()).toBe('failure');
    }
    const count = await page.locator('#episode-count strong').textContent();
    // The provenance filter's own count of synthetic episodes, with the outcome filter applied.
    expect(await page.locator('select[name=provenance] option:checked').textContent()).toBe(
      `synthetic (${count})`,
    );
    await shot('episodes');

    await rows.first().locator('a.open').click();
    await page.waitForURL(/\/episodes\/[^/?]+#step-1$/);
    const steps = await page.locator('section.step').count();
    expect(steps).toBeGreaterThan(1);
    await expect
      .poll(() => page.locator('#step-indicator').textContent())
      .toBe(`step 1 of ${steps}`);
    expect(await page.locator('section.step.current').getAttribute('data-step')).toBe('1');
    expect(await page.locator('section.step.current .reasoning.model').textContent()).not.toBe('');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#step-indicator').textContent()).toBe(`step 2 of ${steps}`);
    expect(await page.locator('section.step.current').getAttribute('data-step')).toBe('2');
    expect(await page.locator('section.step:visible').count()).toBe(1);
    await page.keyboard.press('End');
    expect(await page.locator('#step-indicator').textContent()).toBe(`step ${steps} of ${steps}`);
    await page.keyboard.press('ArrowLeft');
    expect(page.url()).toMatch(new RegExp(`#step-${steps - 1}$`));
    await page.keyboard.press('Home');
    await shot('episode');

    await page.locator('#open-compare').click();
    await page.waitForURL(/\/compare\?/);
    expect(await page.locator('#compare tr.compare-step').count()).toBeGreaterThan(0);
    // Real and synthetic next states of a step differ somewhere, and the diff marks it.
    expect(
      await page.locator('#compare .diff .added, #compare .diff .removed').count(),
    ).toBeGreaterThan(0);
    expect(await page.locator('#compare thead').textContent()).toContain('real-offline');
    await shot('compare');
  });

  it('never changed the buffer it read', () => {
    expect(hash(join(runDir, 'buffer.db'))).toBe(bufferHash);
  });
});
