/**
 * `dreamgym buffer import` of agent transcripts (issue 36, part 5): OpenAI chat logs and OTLP
 * GenAI spans round-trip through the buffer, and a bad file is refused whole, naming the line.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../core/types.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import {
  readTranscriptFile,
  type TranscriptFormat,
} from '../../data/transcripts/transcript-file.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

const fixtures = join(import.meta.dirname, '../../data/transcripts/testing');
const fixture = (name: string) => join(fixtures, name);
const tempDir = () => mkdtempSync(join(tmpdir(), 'dreamgym-transcripts-cli-'));

/** What an episode is, for the round trip: its task and, per step, action, observation, reward. */
const episode = (t: Trajectory) => ({
  id: t.id,
  env: t.env,
  provenance: t.provenance,
  task: t.task,
  initial: t.initial.text,
  steps: t.steps.map((s) => [s.action, s.observation.text, s.reward, s.terminated, s.truncated]),
});

describe.each([
  ['openai-chat', 'helpdesk.chat.jsonl', 'helpdesk.chat.outcomes.jsonl'],
  ['otlp', 'helpdesk.otlp.json', 'helpdesk.otlp.outcomes.jsonl'],
] as const)('dreamgym buffer import of %s transcripts', (format, file, outcomes) => {
  it('detects the format, imports every episode, and exports the same episodes', async () => {
    const dir = tempDir();
    const db = join(dir, 'buffer.db');
    const args = ['buffer', 'import', fixture(file), '--db', db, '--env', 'helpdesk'];
    const imported = await runCliInProcess([...args, '--outcomes', fixture(outcomes)]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`as ${format} (detected; --format to override)`);
    expect(imported.stdout).toMatch(/added 4 trajectories \(0 already stored\)/);
    const again = await runCliInProcess([
      ...args,
      '--outcomes',
      fixture(outcomes),
      '--format',
      format,
    ]);
    expect(again.stdout).toContain(`as ${format}\n`);
    expect(again.stdout).toMatch(/added 0 trajectories \(4 already stored\)/);

    const out = join(dir, 'export.jsonl');
    const exported = await runCliInProcess(['buffer', 'export', '--db', db, '--out', out]);
    expect(exported.stdout).toContain('wrote 4 trajectories');
    const expected = await readTranscriptFile(fixture(file), {
      format: format as TranscriptFormat,
      env: 'helpdesk',
      outcomesPath: fixture(outcomes),
    });
    const roundTripped = await readTrajectories(out);
    expect(roundTripped.map(episode)).toEqual(expected.trajectories.map(episode));
    expect(roundTripped.map((t) => t.steps.at(-1)?.reward)).toEqual([1, 1, 0, 1]);
  }, 120_000);
});

describe('dreamgym buffer import of a bad transcript', () => {
  /** A failure that names the fix: exit 1, one `error:` line, no stack frames. */
  const expectCleanFailure = (run: { code: number; stderr: string }, message: string | RegExp) => {
    expect(run.code, `exit code ${run.code}; stderr:\n${run.stderr}`).toBe(1);
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  };

  it('refuses the whole file, naming the line, and creates no buffer', async () => {
    const dir = tempDir();
    const db = join(dir, 'buffer.db');
    const lines = readFileSync(fixture('helpdesk.chat.jsonl'), 'utf8').split('\n');
    lines[2] = (lines[2] as string).replace('"tool_call_id":"call_3a"', '"tool_call_id":"call_3x"');
    const bad = join(dir, 'bad.chat.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const run = await runCliInProcess(['buffer', 'import', bad, '--db', db, '--env', 'helpdesk']);
    expectCleanFailure(
      run,
      `${bad}:3: messages[3]: tool message answers call "call_3x", but no earlier assistant message made a call with that id`,
    );
    expect(existsSync(db)).toBe(false);

    const noOutcome = await runCliInProcess([
      'buffer',
      'import',
      fixture('helpdesk.chat.jsonl'),
      '--db',
      db,
      '--env',
      'helpdesk',
    ]);
    expectCleanFailure(noOutcome, /helpdesk\.chat\.jsonl:4: no outcome: .*--outcomes/);
    expect(existsSync(db)).toBe(false);
  }, 120_000);

  it('says what a transcript needs, and what a trajectory file does not take', async () => {
    const dir = tempDir();
    const db = join(dir, 'buffer.db');
    const chat = fixture('helpdesk.chat.jsonl');
    expectCleanFailure(
      await runCliInProcess(['buffer', 'import', chat, '--db', db]),
      'importing openai-chat transcripts needs --env NAME: the env family their episodes belong to, e.g. --env helpdesk (or the env module they come from, --env ./my-env.ts).',
    );
    expectCleanFailure(
      await runCliInProcess([
        'buffer',
        'import',
        chat,
        '--db',
        db,
        '--env',
        'x',
        '--outcomes',
        join(dir, 'nope.jsonl'),
      ]),
      `${join(dir, 'nope.jsonl')}: no such outcomes file`,
    );
    const trajectories = join(dir, 'data.jsonl');
    writeFileSync(trajectories, '');
    expectCleanFailure(
      await runCliInProcess([
        'buffer',
        'import',
        trajectories,
        '--db',
        db,
        '--format',
        'trajectories',
        '--env',
        'x',
      ]),
      '--env applies to transcripts (--format openai-chat or otlp); a trajectory file names its env and rewards on every line',
    );
    const wrongFormat = await runCliInProcess([
      'buffer',
      'import',
      chat,
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(wrongFormat.code).not.toBe(0);
    expect(wrongFormat.stderr).toMatch(/Allowed choices are openai-chat, otlp, trajectories/);
    expect(existsSync(db)).toBe(false);
  }, 120_000);
});
