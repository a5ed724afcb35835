import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/testing/run-cli-in-process.ts';
import { transitions } from '../../core/types.ts';
import { FakeOpenAiServer } from '../../llm/testing/fake-openai-server.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../../replay/testing/fixtures.ts';
import type { SftExample } from './sft-export.ts';

const dreamgym = (args: string[]) => runCliInProcess(args);

describe('dreamgym annotate and export-sft', () => {
  let server: FakeOpenAiServer;
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-annotate-'));
  const db = join(dir, 'buffer.db');
  let count = 0;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start({
      models: ['teacher'],
      reply: () => JSON.stringify({ reasoning: 'The page follows from the action.' }),
    });
    const trajectories = await webshopTrajectories(4, 5);
    count = trajectories.flatMap(transitions).length;
    const buffer = SqliteReplayBuffer.open({ path: db });
    await buffer.add(trajectories);
    await buffer.close();
  });
  afterAll(async () => {
    await server.close();
  });

  const llmFlags = () => ['--llm-url', server.url, '--llm-model', 'teacher'];

  it('annotates in resumable runs, then exports the annotated transitions', async () => {
    const first = await dreamgym(['annotate', '--db', db, ...llmFlags(), '--limit', '3']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('annotated 3 transitions');
    const second = await dreamgym(['annotate', '--db', db, ...llmFlags(), '--concurrency', '2']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`annotated ${count - 3} transitions`);
    expect(second.stdout).toContain('3 already had teacher reasoning; 0 failed');
    expect(server.posts('chat/completions')).toHaveLength(count);

    const out = join(dir, 'sft', 'webshop.jsonl');
    const exported = await dreamgym(['export-sft', '--db', db, '--out', out, '--k', '2']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`wrote ${count} examples`);
    expect(exported.stdout).toContain(`examples: ${out}`);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(count);
    const example = JSON.parse(lines[0] as string) as SftExample;
    expect(JSON.parse(example.messages[2]?.content ?? '')).toMatchObject({
      reasoning: 'The page follows from the action.',
    });
  });

  it('names the fix for a missing buffer and a bad URL', async () => {
    const missing = await dreamgym(['export-sft', '--db', join(dir, 'none.db'), '--out', 'x']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('dreamgym buffer import FILE');
    const badUrl = await dreamgym([
      'annotate',
      '--db',
      db,
      '--llm-url',
      'localhost:8000',
      '--llm-model',
      'm',
    ]);
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toContain('--llm-url must be an http(s) URL');
  });
});
