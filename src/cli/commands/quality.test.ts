import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium } from '../../envs/web/browser/chromium.ts';
import { browserLeftovers, browserTmpDir } from '../../envs/web/testing/browser-leftovers.ts';
import { FakeOpenAiServer } from '../../llm/testing/fake-openai-server.ts';
import { runCli } from '../testing/run-cli.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../testing/timeouts.ts';

describe('dreamgym quality', () => {
  it('writes the table, the JSON and the plot for household', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-quality-'));
    const run = await runCliInProcess([
      'quality',
      '--env',
      'household',
      '--tasks',
      '3',
      '--group-size',
      '2',
      '--offline-episodes',
      '30',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'quality.json'), 'utf8'));
    expect(json.rows).toHaveLength(4);
    expect(json.rows[0].proxies.consistency.mean).toBe(1);
    expect(readFileSync(join(out, 'quality.md'), 'utf8')).toContain('| − retrieval |');
    expect(statSync(join(out, 'quality.png')).size).toBeGreaterThan(1000);
  }, 120_000);

  // In a child: whether the browser it launched is gone when the process has exited is the point.
  it('measures the forum in a real browser, and leaves no browser behind', {
    timeout: spawningTestTimeout(1),
  }, async () => {
    // No browser is a failure naming the fix (BrowserNotFoundError), never a skip.
    findChromium();
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-quality-web-'));
    const browserTmp = browserTmpDir();
    const run = await runCli(
      [
        'quality',
        '--env',
        'web:forum',
        '--tasks',
        '2',
        '--group-size',
        '2',
        '--offline-episodes',
        '4',
        '--out',
        out,
      ],
      { env: { TMPDIR: browserTmp } },
    );
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'quality.json'), 'utf8'));
    expect(json.rows.map((r: { name: string }) => r.name)).toEqual([
      'real env (reference)',
      'DreamGym (full)',
      '− history',
    ]);
    // Over an empty buffer the web model has no page to begin from: the report says so.
    expect(json.retrievalAblation).toMatch(/^does not apply: .*cannot begin an episode/);
    expect(json.rows[0].episodes).toBe(4);
    expect(json.rows[0].proxies.consistency.units).toBeGreaterThan(0);
    expect(json.rows[0].proxies.consistency.mean).toBe(1);
    expect(json.vocabulary).toBeGreaterThan(10);
    expect(browserLeftovers(browserTmp)).toEqual({ processes: [], profiles: [] });
  });

  it('names the envs with a lens, and asks for both judge flags', async () => {
    const lens = await runCliInProcess(['quality', '--env', 'agentgym:webshop@http://127.0.0.1:1']);
    expect(lens.code).not.toBe(0);
    expect(lens.stderr).toMatch(
      /"agentgym:webshop" has no quality lens: the quality proxies read webshop, household and web .*exports lens/,
    );
    const judge = await runCliInProcess(['quality', '--judge-url', 'http://127.0.0.1:1/v1']);
    expect(judge.code).not.toBe(0);
    expect(judge.stderr).toMatch(/--judge-url and --judge-model/);
  });

  it('asks an OpenAI-compatible judge for a schema-checked score per criterion, in every row', async () => {
    const criterion = { reason: 'the cabinet shows the same mug each visit', score: 4 };
    const server = await FakeOpenAiServer.start({
      reply: () =>
        JSON.stringify({
          consistency: criterion,
          diversity: { ...criterion, score: 3 },
          informativeness: criterion,
          hallucination: { ...criterion, score: 5 },
        }),
    });
    try {
      const out = mkdtempSync(join(tmpdir(), 'dreamgym-quality-judge-'));
      const run = await runCliInProcess([
        'quality',
        '--env',
        'household',
        '--tasks',
        '2',
        '--group-size',
        '2',
        '--offline-episodes',
        '20',
        '--judge-url',
        server.url,
        '--judge-model',
        'fake-model',
        '--judge-groups',
        '1',
        '--out',
        out,
      ]);
      expect(run.code).toBe(0);
      const json = JSON.parse(readFileSync(join(out, 'quality.json'), 'utf8'));
      for (const row of json.rows) {
        expect(row.judge.scores.diversity.mean).toBe(3);
        expect(row.judge.scores.hallucination.mean).toBe(5);
        expect(row.judge.failures).toBe(0);
      }
      const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
      expect(chats).toHaveLength(4); // one group in each of the four rows
      const body = chats[0]?.body as { response_format?: { json_schema?: { name: string } } };
      expect(body.response_format?.json_schema?.name).toBe('experience_quality');
      expect(readFileSync(join(out, 'quality.md'), 'utf8')).toContain('judge: consistency');
    } finally {
      await server.close();
    }
  }, 120_000);
});
