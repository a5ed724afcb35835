import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataFormatError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';
import {
  PARTIAL_SUFFIX,
  readTrajectories,
  readTrajectoriesStream,
  TrajectoryFileNotFoundError,
  TrajectoryWriteError,
  TrajectoryWriter,
} from './trajectory-file.ts';
import { encodeTrajectory, TrajectoryFormatError } from './trajectory-format.ts';

function makeTrajectory(i: number): Trajectory {
  const instruction = `find object ${i}`;
  const length = (i % 4) + 1;
  return {
    id: `traj-${i}`,
    env: 'household',
    task: {
      id: `task-${i % 3}`,
      env: 'household',
      instruction,
      origin: 'generated',
      parentId: 'p',
    },
    initial: { text: 'You are in the middle of a room.', instruction },
    steps: Array.from({ length }, (_, t) => ({
      action: `go to shelf ${t + 1}`,
      observation: {
        text: `On the shelf ${t + 1}, you see a mug.`,
        instruction,
        actions: ['look'],
      },
      reward: t === length - 1 ? 1 : 0,
      terminated: t === length - 1 && i % 2 === 0,
      truncated: t === length - 1 && i % 2 === 1,
      ...(i % 2 === 1 && t === length - 1 ? { info: { truncatedBy: 'time-limit' } } : {}),
    })),
    provenance: i % 2 === 0 ? 'synthetic' : 'real-online',
    policyId: 'choice-policy@3',
    startedAt: '2025-02-01T08:00:00Z',
    endedAt: '2025-02-01T08:00:01Z',
  };
}

const lines = (trajectories: Trajectory[]) =>
  trajectories.map((t) => `${encodeTrajectory(t)}\n`).join('');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dreamgym-trajectories-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeAll(path: string, trajectories: Trajectory[], append = false) {
  const writer = await TrajectoryWriter.open(path, { append });
  for (const trajectory of trajectories) await writer.write(trajectory);
  await writer.close();
  return writer;
}

describe('TrajectoryWriter and readTrajectories', () => {
  it('round-trips trajectories, creating parent directories', async () => {
    const path = join(dir, 'nested', 'deeper', 'offline.jsonl');
    const trajectories = Array.from({ length: 25 }, (_, i) => makeTrajectory(i));
    const writer = await writeAll(path, trajectories);
    expect(writer.count).toBe(25);
    expect(await readTrajectories(path)).toEqual(trajectories);
  });

  it('keeps lines in call order when writes overlap', async () => {
    const path = join(dir, 'overlap.jsonl');
    const trajectories = Array.from({ length: 10 }, (_, i) => makeTrajectory(i));
    const writer = await TrajectoryWriter.open(path);
    await Promise.all(trajectories.map((t) => writer.write(t)));
    await writer.close();
    expect(await readTrajectories(path)).toEqual(trajectories);
  });

  it('leaves no final file until close, and no partial file after', async () => {
    const path = join(dir, 'run.jsonl');
    const writer = await TrajectoryWriter.open(path);
    await writer.write(makeTrajectory(0));
    expect(existsSync(path)).toBe(false);
    expect(existsSync(path + PARTIAL_SUFFIX)).toBe(true);
    await writer.close();
    expect(existsSync(path)).toBe(true);
    expect(existsSync(path + PARTIAL_SUFFIX)).toBe(false);
    await writer.close();
    await expect(writer.write(makeTrajectory(1))).rejects.toThrow(TrajectoryWriteError);
  });

  it('writes an empty file when closed with nothing written', async () => {
    const path = join(dir, 'empty.jsonl');
    await writeAll(path, []);
    expect(await readFile(path, 'utf8')).toBe('');
    expect(await readTrajectories(path)).toEqual([]);
  });

  it('refuses an invalid trajectory, writes nothing for it, and stays usable', async () => {
    const path = join(dir, 'mixed.jsonl');
    const writer = await TrajectoryWriter.open(path);
    await writer.write(makeTrajectory(0));
    const bad = makeTrajectory(1);
    (bad.steps[0] as { terminated: boolean }).terminated = true;
    (bad.steps[0] as { truncated: boolean }).truncated = true;
    await expect(writer.write(bad)).rejects.toThrow(TrajectoryFormatError);
    await writer.write(makeTrajectory(2));
    await writer.close();
    expect(writer.count).toBe(2);
    expect((await readTrajectories(path)).map((t) => t.id)).toEqual(['traj-0', 'traj-2']);
  });

  it('replaces an existing file only on close, unless appending', async () => {
    const path = join(dir, 'replace.jsonl');
    await writeAll(path, [makeTrajectory(0), makeTrajectory(1)]);
    const writer = await TrajectoryWriter.open(path);
    await writer.write(makeTrajectory(2));
    expect((await readTrajectories(path)).map((t) => t.id)).toEqual(['traj-0', 'traj-1']);
    await writer.close();
    expect((await readTrajectories(path)).map((t) => t.id)).toEqual(['traj-2']);
  });

  it('appends after the existing trajectories, publishing them together on close', async () => {
    const path = join(dir, 'grow.jsonl');
    await writeAll(path, [makeTrajectory(0), makeTrajectory(1)]);
    const writer = await TrajectoryWriter.open(path, { append: true });
    await writer.write(makeTrajectory(2));
    expect(await readTrajectories(path)).toHaveLength(2);
    await writer.close();
    expect(writer.count).toBe(1);
    expect(await readTrajectories(path)).toEqual([0, 1, 2].map(makeTrajectory));
  });

  it('appends to a file missing its final newline, or to no file at all', async () => {
    const edited = join(dir, 'edited.jsonl');
    await writeFile(edited, encodeTrajectory(makeTrajectory(0)));
    await writeAll(edited, [makeTrajectory(1)], true);
    expect(await readTrajectories(edited)).toEqual([0, 1].map(makeTrajectory));

    const fresh = join(dir, 'fresh.jsonl');
    await writeAll(fresh, [makeTrajectory(3)], true);
    expect(await readTrajectories(fresh)).toEqual([makeTrajectory(3)]);
  });

  it('refuses to open while a partial file exists, naming it', async () => {
    const path = join(dir, 'busy.jsonl');
    const first = await TrajectoryWriter.open(path);
    await expect(TrajectoryWriter.open(path)).rejects.toThrow(
      `${path}${PARTIAL_SUFFIX} already exists`,
    );
    await expect(TrajectoryWriter.open(path, { append: true })).rejects.toThrow(
      TrajectoryWriteError,
    );
    await first.write(makeTrajectory(0));
    await first.close();
    expect(await readTrajectories(path)).toEqual([makeTrajectory(0)]);
  });

  it('aborts without touching the existing file', async () => {
    const path = join(dir, 'keep.jsonl');
    await writeAll(path, [makeTrajectory(0)]);
    const writer = await TrajectoryWriter.open(path, { append: true });
    await writer.write(makeTrajectory(1));
    await writer.abort();
    expect(existsSync(path + PARTIAL_SUFFIX)).toBe(false);
    expect(await readTrajectories(path)).toEqual([makeTrajectory(0)]);
  });

  it('in place, has each trajectory in the file once its write resolves, after those it held', async () => {
    const path = join(dir, 'record.jsonl');
    await writeAll(path, [makeTrajectory(0)]);
    const writer = await TrajectoryWriter.open(path, { inPlace: true });
    await writer.write(makeTrajectory(1));
    // Not closed: what a crash would leave.
    expect(await readTrajectories(path)).toEqual([makeTrajectory(0), makeTrajectory(1)]);
    expect(existsSync(path + PARTIAL_SUFFIX)).toBe(false);
    await writer.write(makeTrajectory(2));
    await writer.abort();
    expect(await readTrajectories(path)).toEqual([0, 1, 2].map(makeTrajectory));
    expect(writer.count).toBe(2);
  });

  it('skips blank lines and keeps counting them in line numbers', async () => {
    const path = join(dir, 'blanks.jsonl');
    const [a, b] = [makeTrajectory(0), makeTrajectory(1)];
    await writeFile(path, `\n${encodeTrajectory(a)}\r\n   \n\n${encodeTrajectory(b)}\n\n`);
    expect(await readTrajectories(path)).toEqual([a, b]);
    await appendFile(path, 'oops\n');
    await expect(readTrajectories(path)).rejects.toMatchObject({ line: 7 });
  });

  it('throws DataFormatError for malformed JSON on line 3 and returns nothing', async () => {
    const path = join(dir, 'broken.jsonl');
    await writeFile(
      path,
      `${lines([makeTrajectory(0), makeTrajectory(1)])}{"format":"dreamgym.trajectory",\n${lines([makeTrajectory(3)])}`,
    );
    const error = await readTrajectories(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFormatError);
    expect(error).toMatchObject({ file: path, line: 3 });
    expect((error as Error).message).toContain(`${path}:3: not valid JSON`);
  });

  it('names the line and field of a schema violation', async () => {
    const path = join(dir, 'schema.jsonl');
    const bad = JSON.parse(encodeTrajectory(makeTrajectory(5)));
    bad.steps[1].reward = '1';
    await writeFile(path, `${lines([makeTrajectory(0)])}${JSON.stringify(bad)}\n`);
    await expect(readTrajectories(path)).rejects.toThrow(
      `${path}:2: steps[1].reward: expected number, got "1"`,
    );
  });

  it('refuses a file from a newer dreamgym, saying which versions', async () => {
    const path = join(dir, 'future.jsonl');
    const line = JSON.parse(encodeTrajectory(makeTrajectory(0)));
    await writeFile(path, `${JSON.stringify({ ...line, version: 2 })}\n`);
    await expect(readTrajectories(path)).rejects.toThrow(
      /future\.jsonl:1: version: this line has trajectory format version 2, but this dreamgym reads versions up to 1\. Upgrade dreamgym/,
    );
  });

  it('refuses a step that terminates before the end', async () => {
    const path = join(dir, 'early.jsonl');
    const line = JSON.parse(encodeTrajectory(makeTrajectory(2)));
    line.steps[0].terminated = true;
    await writeFile(path, `${JSON.stringify(line)}\n`);
    await expect(readTrajectories(path)).rejects.toThrow(
      `${path}:1: steps[0].terminated: only the last step may end the episode`,
    );
  });

  it('names the path of a missing file', async () => {
    const path = join(dir, 'nope.jsonl');
    const error = await readTrajectories(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrajectoryFileNotFoundError);
    expect((error as Error).message).toContain(`${path}: no such trajectory file`);
    await expect(readTrajectoriesStream(path).next()).rejects.toThrow(TrajectoryFileNotFoundError);
  });
});

describe('readTrajectoriesStream', () => {
  it('yields the valid lines before a malformed one, then throws at that line', async () => {
    const path = join(dir, 'stream.jsonl');
    await writeFile(path, `${lines([makeTrajectory(0), makeTrajectory(1)])}not json\n`);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const trajectory of readTrajectoriesStream(path)) seen.push(trajectory.id);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['traj-0', 'traj-1']);
    expect(error).toMatchObject({ name: 'DataFormatError', line: 3 });
  });

  it('can stop early', async () => {
    const path = join(dir, 'early-stop.jsonl');
    await writeAll(
      path,
      Array.from({ length: 5 }, (_, i) => makeTrajectory(i)),
    );
    for await (const trajectory of readTrajectoriesStream(path)) {
      expect(trajectory.id).toBe('traj-0');
      break;
    }
  });
});
