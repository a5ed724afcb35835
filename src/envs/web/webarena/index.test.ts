import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TaskError } from '../../../core/errors.ts';
import { findChromium } from '../browser/chromium.ts';
import { isWebArenaRef, parseWebArenaRef, webarenaEntry } from './index.ts';
import { type ServedApp, serveApp } from './testing/serve-app.ts';

const dir = mkdtempSync(join(tmpdir(), 'webarena-entry-'));
const file = join(dir, 'lite.json');
/** A config whose task names a site of its own, not one of WebArena's seven. */
const ownSite = join(dir, 'own-site.json');
let site: ServedApp;

function app(): Hono {
  const hono = new Hono();
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  hono.get('/', (c) => c.html(page('Forum', '<h1>Forum</h1><a href="/f/books">Books</a>')));
  hono.get('/f/books', (c) => c.html(page('Books', '<h1>Books</h1><p>3 posts</p>')));
  return hono;
}

beforeAll(async () => {
  // No browser is a failure naming the fix (BrowserNotFoundError), never a skip.
  findChromium();
  site = await serveApp(app());
  const task = (id: number, sites: string[], evaluation: Record<string, unknown>) => ({
    task_id: id,
    sites,
    start_url: `__${sites[0]?.toUpperCase()}__`,
    intent: `task ${id}`,
    require_login: false,
    storage_state: null,
    eval: evaluation,
  });
  writeFileSync(
    file,
    JSON.stringify([
      task(0, ['reddit'], { eval_types: ['url_match'], reference_url: '__REDDIT__/f/books' }),
      task(1, ['reddit'], {
        eval_types: ['string_match'],
        reference_answers: { must_include: ['3'] },
      }),
      task(2, ['gitlab'], { eval_types: ['url_match'], reference_url: '__GITLAB__/todos' }),
    ]),
  );
  writeFileSync(
    ownSite,
    JSON.stringify([
      task(0, ['registry'], {
        eval_types: ['url_match'],
        reference_url: '__REGISTRY__/f/books',
      }),
    ]),
  );
});
afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('webarena@CONFIG', () => {
  it('parses the env name and refuses one without a path', () => {
    expect(isWebArenaRef('webarena@configs/lite.json')).toBe(true);
    expect(parseWebArenaRef('webarena@configs/lite.json')).toBe('configs/lite.json');
    expect(() => parseWebArenaRef('webarena@')).toThrow(ConfigError);
    expect(() => webarenaEntry(`webarena@${join(dir, 'nope.json')}`)).toThrow(/no such file/);
  });

  it('describes the tasks, the sites without a URL and the missing judge', () => {
    const entry = webarenaEntry(`webarena@${file}`, { sites: [`reddit=${site.url}`], env: {} });
    expect(entry.description).toContain('(3 tasks; sites gitlab, reddit)');
    expect(entry.description).toContain('no URL for gitlab (--site NAME=URL)');
    expect(entry.description).toContain('fuzzy_match undecided (no judge)');
    expect(
      entry
        .tasks({})
        .tasks('test')
        .map((t) => t.id),
    ).toEqual(['webarena:0', 'webarena:1', 'webarena:2']);
  });

  it('runs the configs in a BrowserEnv against the given site and scores them', async () => {
    const ref = `webarena@${file}`;
    const entry = webarenaEntry(ref, { env: { REDDIT: site.url } });
    const env = entry.make({});
    try {
      const [navigate, answer, elsewhere] = entry.tasks({}).tasks('test');
      const books = (text: string) => /\[(\d+)\] link 'Books'/.exec(text)?.[1];
      const first = await env.reset({ task: navigate });
      expect(books(first.observation.text)).toBeDefined();
      await env.step(`click [${books(first.observation.text)}]`);
      expect(await env.step('stop [done]')).toMatchObject({ reward: 1, terminated: true });
      await env.reset({ task: navigate });
      expect((await env.step('stop [done]')).reward).toBe(0);

      await env.reset({ task: answer });
      expect((await env.step('stop [There are 3 posts]')).reward).toBe(1);
      await env.reset({ task: answer });
      expect((await env.step('stop [There are 13 posts]')).reward).toBe(0);

      await expect(env.reset({ task: elsewhere })).rejects.toThrow(TaskError);
      await expect(env.reset({ task: elsewhere })).rejects.toThrow(/--site gitlab=/);
    } finally {
      await env.close();
    }
  });

  it('runs a task naming a site of its own, its URL from --site or DREAMGYM_SITE_<NAME>', async () => {
    const ref = `webarena@${ownSite}`;
    const refused = webarenaEntry(ref, { env: { REGISTRY: site.url } });
    expect(refused.description).toContain('no URL for registry (--site NAME=URL)');
    const unset = refused.make({});
    try {
      await expect(unset.reset({ seed: 0 })).rejects.toThrow(
        /needs the site "registry" .*--site registry=http:\/\/HOST:PORT or set DREAMGYM_SITE_REGISTRY=/,
      );
    } finally {
      await unset.close();
    }
    for (const entry of [
      webarenaEntry(ref, { sites: [`registry=${site.url}`], env: {} }),
      webarenaEntry(ref, { env: { DREAMGYM_SITE_REGISTRY: `${site.url}/` } }),
    ]) {
      expect(entry.description).toContain('all site URLs given');
      const env = entry.make({});
      try {
        const first = await env.reset({ seed: 0 });
        const books = /\[(\d+)\] link 'Books'/.exec(first.observation.text)?.[1];
        expect(books).toBeDefined();
        await env.step(`click [${books}]`);
        expect(await env.step('stop [done]')).toMatchObject({ reward: 1, terminated: true });
      } finally {
        await env.close();
      }
    }
  });
});
