import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';

describe('dreamgym buffer', () => {
  it('imports, reports, searches and exports; a re-import adds nothing; a bad file changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-buffer-cli-'));
    const data = join(dir, 'offline.jsonl');
    const db = join(dir, 'buffer.db');
    const collected = await runCliInProcess([
      'collect',
      '--env',
      'webshop',
      '--episodes',
      '12',
      '--epsilon',
      '0.3',
      '--out',
      data,
    ]);
    expect(collected.code).toBe(0);

    const imported = await runCliInProcess(['buffer', 'import', data, '--db', db]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/added 12 trajectories \(0 already stored\)/);
    const again = await runCliInProcess(['buffer', 'import', data, '--db', db]);
    expect(again.stdout).toMatch(/added 0 trajectories \(12 already stored\)/);

    const stats = await runCliInProcess(['buffer', 'stats', '--db', db, '--json']);
    const parsed = JSON.parse(stats.stdout);
    expect(parsed.trajectories).toBe(12);
    expect(parsed.byEnv.webshop['real-offline'].trajectories).toBe(12);

    const first = JSON.parse(readFileSync(data, 'utf8').split('\n')[0] as string);
    const search = await runCliInProcess([
      'buffer',
      'search',
      '--db',
      db,
      '--state',
      first.initial.text,
      '--action',
      first.steps[0].action,
      '--instruction',
      first.task.instruction,
      '-k',
      '2',
    ]);
    expect(search.code).toBe(0);
    expect(search.stdout).toMatch(/#1 similarity 1\.000 · real-offline/);

    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(data, 'utf8').replace(/"id":"/g, '"id":"copy-')}{oops\n`);
    const failed = await runCliInProcess(['buffer', 'import', bad, '--db', db]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(`${bad}:13`);
    const after = JSON.parse(
      (await runCliInProcess(['buffer', 'stats', '--db', db, '--json'])).stdout,
    );
    expect(after.trajectories).toBe(12);

    const out = join(dir, 'export.jsonl');
    const exported = await runCliInProcess(['buffer', 'export', '--db', db, '--out', out]);
    expect(exported.stdout).toContain('wrote 12 trajectories');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(12);
  }, 60_000);
});
