import { beforeAll, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../../core/types.ts';
import { LlmTimeoutError } from '../../llm/errors.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { teacherReasoning } from '../../replay/annotations.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { relabel, webshopTrajectories } from '../../replay/testing/fixtures.ts';
import { annotateBuffer } from './annotate.ts';

let offline: Trajectory[];
let total: number;

beforeAll(async () => {
  offline = await webshopTrajectories(8, 3);
  total = offline.flatMap(transitions).length;
});

async function freshBuffer(): Promise<SqliteReplayBuffer> {
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  await buffer.add(relabel(offline.slice(0, 2), 'synthetic', 'dream'));
  return buffer;
}

/** Teacher reasoning of every real transition, in buffer order. */
async function stored(buffer: SqliteReplayBuffer): Promise<Array<string | undefined>> {
  const reasonings: Array<string | undefined> = [];
  for (const t of offline)
    reasonings.push(...(await buffer.trajectoryTransitions(t.id)).map(teacherReasoning));
  return reasonings;
}

const teacher = () =>
  new MockLlm({ answers: (_request, i) => ({ reasoning: `  explanation ${i}  ` }) });

describe('annotateBuffer', () => {
  it('stores the teacher reasoning of real transitions and resumes where it stopped', async () => {
    const buffer = await freshBuffer();
    const llm = teacher();
    const first = await annotateBuffer({ buffer, llm, limit: 5, concurrency: 2 });
    expect(first).toMatchObject({ total, annotated: 5, alreadyAnnotated: 0, failed: 0 });
    const afterFirst = await stored(buffer);
    expect(afterFirst.filter((r) => r !== undefined)).toHaveLength(5);

    const second = await annotateBuffer({ buffer, llm });
    expect(second).toMatchObject({
      total,
      visited: total,
      annotated: total - 5,
      alreadyAnnotated: 5,
    });
    const afterSecond = await stored(buffer);
    expect(afterSecond.every((r) => r !== undefined && /^explanation \d+$/.test(r))).toBe(true);
    expect(afterSecond.slice(0, 5)).toEqual(afterFirst.slice(0, 5));
    expect(llm.requests).toHaveLength(total);
    // Synthetic transitions are never sent; the policy's own reasoning is left as it was.
    const [trajectory] = offline as [Trajectory];
    expect(
      (await buffer.trajectoryTransitions(`dream-${trajectory.id}`)).map(teacherReasoning),
    ).toEqual(trajectory.steps.map(() => undefined));
    expect((await buffer.trajectoryTransitions(trajectory.id)).map((t) => t.reasoning)).toEqual(
      trajectory.steps.map((s) => s.reasoning),
    );
  });

  it('shows stored teacher reasoning in later retrievals, even of a remembered question', async () => {
    const buffer = await freshBuffer();
    const [step] = transitions(offline[0] as Trajectory);
    const key = {
      state: step?.state ?? { text: '' },
      action: step?.action ?? '',
      task: step?.task ?? { instruction: '' },
    };
    const [before] = await buffer.retrieve(key, 1);
    expect(before && teacherReasoning(before)).toBeUndefined();
    await buffer.setTeacherReasoning(before?.id ?? -1, 'because');
    const [after] = await buffer.retrieve(key, 1);
    expect(after?.id).toBe(before?.id);
    expect(after && teacherReasoning(after)).toBe('because');
    await expect(buffer.setTeacherReasoning(10 ** 9, 'x')).rejects.toThrow(/has no transition/);
  });

  it('asks with the real outcome, in a prompt unlike the prediction prompt', async () => {
    const buffer = await freshBuffer();
    const llm = teacher();
    await annotateBuffer({ buffer, llm, limit: 2, concurrency: 1 });
    const [, second] = transitions(offline[0] as Trajectory);
    const user = llm.requests[1]?.messages[1]?.content ?? '';
    expect(user).toContain(`## Action\n${second?.action}`);
    expect(user).toContain(`## What the environment really showed next\n${second?.nextState.text}`);
    expect(user).toContain(`Reward: ${second?.reward} · terminated: ${second?.terminated}`);
    expect(user).toContain(
      `### Step 1\nAction: ${transitions(offline[0] as Trajectory)[0]?.action}`,
    );
    expect(llm.requests[1]?.messages[0]?.content).toContain('never mention that the outcome');
  });

  it('counts and skips teacher failures, and a rerun picks them up', async () => {
    const buffer = await freshBuffer();
    const flaky = new MockLlm({
      answers: (_request, i) =>
        i === 1 ? new LlmTimeoutError('teacher', 10) : i === 3 ? 'not json' : { reasoning: 'ok' },
    });
    const result = await annotateBuffer({ buffer, llm: flaky, limit: 6, concurrency: 1 });
    expect(result).toMatchObject({ annotated: 4, failed: 2 });
    expect(result.lastError).toContain('unusable answer');
    expect((await stored(buffer)).slice(0, 6).map((r) => r !== undefined)).toEqual([
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
    const rerun = await annotateBuffer({ buffer, llm: teacher(), limit: 2 });
    expect(rerun).toMatchObject({ annotated: 2, alreadyAnnotated: 2, visited: 4 });
    expect((await stored(buffer)).slice(0, 6).every((r) => r !== undefined)).toBe(true);
  });

  it('stops after too many failures in a row instead of grinding through the buffer', async () => {
    const buffer = await freshBuffer();
    const down = new MockLlm({ answers: () => new LlmTimeoutError('teacher', 10) });
    const result = await annotateBuffer({
      buffer,
      llm: down,
      maxConsecutiveFailures: 3,
      concurrency: 1,
    });
    expect(result).toMatchObject({ annotated: 0, failed: 3 });
    expect(result.stoppedEarly).toBe('3 teacher failures in a row');
    expect(down.requests).toHaveLength(3);
  });
});
