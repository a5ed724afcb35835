import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/testing/run-cli.ts';
import { runCliInProcess as dreamgym } from '../cli/testing/run-cli-in-process.ts';
import { spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { FakeOpenAiServer } from './testing/fake-openai-server.ts';
import { writeTinyLlamaGguf } from './testing/tiny-gguf.ts';

describe('dreamgym llm check', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ models: ['qwen'], apiKey: 'k1' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends one structured request to a server and prints answer, latency and tokens', async () => {
    const run = await dreamgym([
      'llm',
      'check',
      '--url',
      server.url,
      '--model',
      'qwen',
      '--api-key',
      'k1',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`backend   ${server.url} (model qwen)`);
    expect(run.stdout).toContain('answer    {"answer":"yes"}');
    expect(run.stdout).toMatch(/latency\s+\d+ ms \(1 request\)/);
    expect(run.stdout).toMatch(/tokens\s+\d+ prompt \+ \d+ completion/);
    const body = server.posts('chat/completions').at(-1)?.body as Record<string, unknown>;
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'check' },
    });
  });

  it('runs a local GGUF model', async () => {
    const gguf = await writeTinyLlamaGguf(
      join(mkdtempSync(join(tmpdir(), 'dreamgym-cli-')), 't.gguf'),
    );
    const run = await dreamgym(['llm', 'check', '--gguf', gguf, '--threads', '1']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/backend\s+llama\.cpp .*t\.gguf \(loaded in \d+ ms\)/);
    expect(run.stdout).toMatch(/answer\s+\{"answer":"(yes|no)"\}/);
  });

  // In child processes: what a process without node-llama-cpp resolves is the point here.
  it('works without node-llama-cpp installed, and says how to install it for --gguf', {
    timeout: spawningTestTimeout(2),
  }, async () => {
    // A module hook that makes node-llama-cpp unresolvable, as after `npm ci --omit=optional`.
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-cli-'));
    const hide = join(dir, 'hide-llama.mjs');
    const hook = `export async function resolve(specifier, context, next) {
    if (specifier !== 'node-llama-cpp') return next(specifier, context);
    throw Object.assign(new Error("Cannot find package 'node-llama-cpp'"), { code: 'ERR_MODULE_NOT_FOUND' });
    }`;
    writeFileSync(
      hide,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`,
    );
    const gguf = await writeTinyLlamaGguf(join(dir, 't.gguf'));
    const nodeOptions = ['--import', hide];
    const local = await runCli(['llm', 'check', '--gguf', gguf], { nodeOptions });
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(/node-llama-cpp is not installed.*npm install node-llama-cpp/);
    const remote = await runCli(
      ['llm', 'check', '--url', server.url, '--model', 'qwen', '--api-key', 'k1'],
      { nodeOptions },
    );
    expect(remote.code).toBe(0);
    expect(remote.stdout).toContain('answer    {"answer":"yes"}');
  });

  it('names the fix for wrong keys, models and options', async () => {
    const url = ['--url', server.url];
    const cases: Array<[string[], RegExp]> = [
      [[...url, '--model', 'qwen', '--api-key', 'bad'], /API key was rejected \(401\).*--api-key/],
      [
        [...url, '--model', 'llama', '--api-key', 'k1'],
        /no model "llama" \(404\)\. It serves: qwen\./,
      ],
      [[], /--url URL --model NAME .* or --gguf PATH/],
      [url, /--url needs --model NAME/],
      [['--url', 'localhost:8000', '--model', 'm'], /must be an http\(s\) URL/],
      [[...url, '--gguf', 'x.gguf'], /exclude each other/],
      [[...url, '--model', 'qwen', '--threads', '2'], /--threads goes with --gguf/],
      [['--gguf', '/nonexistent/model.gguf'], /no such file.*--gguf PATH/],
    ];
    const runs = await Promise.all(cases.map(([args]) => dreamgym(['llm', 'check', ...args])));
    runs.forEach((run, i) => {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(cases[i]?.[1] as RegExp);
    });
  });
});
