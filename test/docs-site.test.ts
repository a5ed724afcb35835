/**
 * The documentation site, built and looked at: VitePress builds docs/ (the CLI reference generated
 * first, as `npm run docs` does), a static server serves the output on loopback, and Chromium
 * takes a screenshot of the home page and of a guide. Set DREAMGYM_DOCS_SCREENSHOTS=DIR to keep
 * them; otherwise they go to a temporary folder that is removed afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.ts';
import { cliReference } from '../src/cli/reference.ts';
import { type LaunchedBrowser, launchChromium } from '../src/envs/web/browser/chromium.ts';

const repo = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'dreamgym-docs-'));
const site = join(work, 'site');
const shots = process.env.DREAMGYM_DOCS_SCREENSHOTS ?? join(work, 'screenshots');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built site as VitePress' `cleanUrls` expects it served: `/guide/x` is `guide/x.html`. */
function serveStatic(root: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const candidates = [path, `${path}.html`, join(path, 'index.html')].map((p) => join(root, p));
    const file = candidates.find(
      (c) => c.startsWith(root) && statSync(c, { throwIfNoEntry: false })?.isFile(),
    );
    if (!file) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

describe('the documentation site', () => {
  let server: Server;
  let chromium: LaunchedBrowser;
  let base: string;

  beforeAll(async () => {
    mkdirSync(join(repo, 'docs/reference'), { recursive: true });
    writeFileSync(join(repo, 'docs/reference/cli.md'), cliReference(buildProgram()));
    await promisify(execFile)(
      join(repo, 'node_modules/.bin/vitepress'),
      ['build', 'docs', '--outDir', site],
      { cwd: repo, timeout: 280_000 },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(
        `vitepress build docs failed (a dead link?):\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
      );
    });
    server = await serveStatic(site);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
    mkdirSync(shots, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    if (!process.env.DREAMGYM_DOCS_SCREENSHOTS) rmSync(work, { recursive: true, force: true });
  });

  async function screenshot(path: string, file: string) {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}${path}`, { waitUntil: 'load' });
    await page.screenshot({ path: join(shots, file) });
    return page;
  }

  it('renders the home page with its title, the search box and the guide link', async () => {
    const page = await screenshot('/', 'home.png');
    expect(await page.title()).toBe('dreamgym');
    expect(await page.locator('.VPHero .name').innerText()).toContain('dreamgym');
    expect(await page.locator('.VPNavBarSearch').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Quickstart' }).first().isVisible()).toBe(true);
    await page.close();
  });

  it("fails the build on a dead internal link under the site's own config", async () => {
    const deadLinked = join(work, 'dead-link');
    mkdirSync(join(deadLinked, '.vitepress'), { recursive: true });
    writeFileSync(
      join(deadLinked, '.vitepress/config.mts'),
      `export { default } from ${JSON.stringify(join(repo, 'docs/.vitepress/config.ts'))};\n`,
    );
    writeFileSync(join(deadLinked, 'index.md'), '# Home\n\n[gone](./no-such-page.md)\n');
    const build = promisify(execFile)(
      join(repo, 'node_modules/.bin/vitepress'),
      ['build', deadLinked],
      {
        cwd: repo,
        timeout: 200_000,
      },
    );
    const failure = await build.then(
      () => 'the build passed',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(failure).toMatch(/1 dead link\(s\) found/);
  }, 240_000);

  it('renders a guide with its heading, sidebar and a working link to the CLI reference', async () => {
    const page = await screenshot('/guide/serving', 'guide-serving.png');
    expect(await page.locator('h1').first().innerText()).toContain(
      'Serving envs to external trainers',
    );
    expect(await page.locator('.VPSidebar').getByText('Fidelity and quality').isVisible()).toBe(
      true,
    );
    await page.goto(`${base}/reference/cli`, { waitUntil: 'load' });
    expect(await page.locator('h3', { hasText: 'dreamgym serve' }).first().isVisible()).toBe(true);
    await page.close();
  });
});
