import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { Trajectory } from '../core/types.ts';
import {
  encodeTrajectory,
  parseTrajectoryLine,
  TRAJECTORY_FORMAT,
  TRAJECTORY_FORMAT_VERSION,
  TrajectoryFormatError,
  type trajectorySchema,
} from './trajectory-format.ts';

function makeTrajectory(id = 'traj-0', stepCount = 3): Trajectory {
  const observation = (text: string) => ({
    text,
    instruction: 'buy a red mug under $20',
    actions: ['search[<query>]', 'click[Buy Now]'],
  });
  return {
    id,
    env: 'webshop',
    task: {
      id: 'task-7',
      env: 'webshop',
      instruction: 'buy a red mug under $20',
      spec: { goal: { asin: 'B0001' }, budget: 20 },
      origin: 'seed',
    },
    initial: observation('[Search]'),
    steps: Array.from({ length: stepCount }, (_, i) => ({
      action: i === 0 ? 'search[red mug]' : `click[item ${i}]`,
      observation: observation(`page ${i + 1}\nline two`),
      reward: i === stepCount - 1 ? 0.75 : 0,
      terminated: i === stepCount - 1,
      truncated: false,
      ...(i === 1
        ? { reasoning: 'the second result matches', info: { invalidAction: 'x', n: 2 } }
        : {}),
    })),
    provenance: 'real-offline',
    policyId: 'scripted-expert',
    seed: 42,
    startedAt: '2025-01-31T12:00:00.000Z',
    endedAt: '2025-01-31T12:00:05.250Z',
  };
}

/** A line as written, changed by `edit`, encoded again. */
// biome-ignore lint/suspicious/noExplicitAny: edits put wrong-typed values into fields on purpose
function editedLine(edit: (line: Record<string, any>) => void): string {
  const line = JSON.parse(encodeTrajectory(makeTrajectory()));
  edit(line);
  return JSON.stringify(line);
}

function problemOf(text: string): string {
  try {
    parseTrajectoryLine(text);
  } catch (error) {
    expect(error).toBeInstanceOf(TrajectoryFormatError);
    return (error as Error).message;
  }
  throw new Error('expected the line to be refused');
}

describe('trajectory line format', () => {
  it('keeps the schema and the Trajectory type in step', () => {
    expectTypeOf<z.infer<typeof trajectorySchema>>().toEqualTypeOf<Trajectory>();
  });

  it('encodes one line with the format tag and version and parses it back unchanged', () => {
    const trajectory = makeTrajectory();
    const line = encodeTrajectory(trajectory);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toMatchObject({
      format: TRAJECTORY_FORMAT,
      version: TRAJECTORY_FORMAT_VERSION,
    });
    expect(parseTrajectoryLine(line)).toEqual(trajectory);
  });

  it('refuses to encode an invalid trajectory rather than write an unreadable line', () => {
    const trajectory = makeTrajectory();
    (trajectory.steps[0] as { reward: number }).reward = Number.POSITIVE_INFINITY;
    expect(() => encodeTrajectory(trajectory)).toThrow(
      'steps[0].reward: expected number, got Infinity',
    );
  });

  it('names the field path and the problem for schema violations', () => {
    expect(problemOf(editedLine((l) => (l.steps[2].reward = 'high')))).toBe(
      'steps[2].reward: expected number, got "high"',
    );
    expect(problemOf(editedLine((l) => delete l.policyId))).toBe(
      'policyId: missing (expected string)',
    );
    expect(problemOf(editedLine((l) => (l.provenance = 'real')))).toBe(
      'provenance: expected one of "real-offline", "real-online", "synthetic", got "real"',
    );
    expect(problemOf(editedLine((l) => (l.seed = 1.5)))).toBe(
      'seed: expected an integer, got number 1.5',
    );
    expect(problemOf(editedLine((l) => (l.startedAt = 'yesterday')))).toContain(
      'startedAt: expected an ISO 8601 date-time',
    );
    expect(problemOf(editedLine((l) => (l.steps[0].observation.reasoning = 'x')))).toBe(
      'steps[0].observation.reasoning: unknown field (format version 1 has no such field)',
    );
  });

  it('keeps extra fields in step info, where envs add their own', () => {
    const parsed = parseTrajectoryLine(editedLine((l) => (l.steps[0].info = { page: 3 })));
    expect(parsed.steps[0]?.info).toEqual({ page: 3 });
  });

  it('refuses a newer version, saying which version the line has and which it supports', () => {
    const message = problemOf(editedLine((l) => (l.version = TRAJECTORY_FORMAT_VERSION + 1)));
    expect(message).toContain(`version ${TRAJECTORY_FORMAT_VERSION + 1}`);
    expect(message).toContain(`up to ${TRAJECTORY_FORMAT_VERSION}`);
    expect(message).toContain('Upgrade dreamgym');
  });

  it('refuses lines that are not dreamgym trajectories', () => {
    expect(problemOf(editedLine((l) => (l.format = 'agentgym.traj')))).toContain(
      'format: "agentgym.traj" is not "dreamgym.trajectory"',
    );
    expect(problemOf(editedLine((l) => delete l.format))).toContain('format: missing');
    expect(problemOf(editedLine((l) => (l.version = '1')))).toBe(
      'version: expected a positive integer, got "1"',
    );
    expect(problemOf('[1, 2]')).toContain('expected a JSON object');
    expect(problemOf('{"format": ')).toContain('not valid JSON');
  });

  it('refuses a step that ends the episode before the last step', () => {
    const message = problemOf(editedLine((l) => (l.steps[1].terminated = true)));
    expect(message).toContain('steps[1].terminated: only the last step may end the episode');
    expect(problemOf(editedLine((l) => (l.steps[0].truncated = true)))).toContain(
      'steps[0].truncated: only the last step',
    );
  });

  it('refuses a step both terminated and truncated', () => {
    expect(problemOf(editedLine((l) => (l.steps[2].truncated = true)))).toContain(
      'steps[2]: terminated and truncated are both true',
    );
  });

  it('refuses a task from another env', () => {
    expect(problemOf(editedLine((l) => (l.task.env = 'household')))).toContain(
      'task.env: task is for env "household" but the trajectory is from env "webshop"',
    );
  });

  it('refuses an episode that ends before it starts', () => {
    expect(problemOf(editedLine((l) => (l.endedAt = '2025-01-31T11:00:00.000Z')))).toContain(
      'endedAt: 2025-01-31T11:00:00.000Z is before startedAt',
    );
  });

  it('accepts a trajectory with no steps and no optional fields', () => {
    const trajectory = makeTrajectory('empty', 0);
    delete trajectory.seed;
    delete trajectory.task.spec;
    expect(parseTrajectoryLine(encodeTrajectory(trajectory))).toEqual(trajectory);
  });

  it('lists several problems at once, capped', () => {
    const message = problemOf(
      editedLine((l) => {
        for (const step of l.steps) step.reward = null;
        l.id = '';
        l.policyId = 3;
        l.seed = 'x';
        l.env = 7;
      }),
    );
    expect(message).toContain('id: must not be empty');
    expect(message).toMatch(/; and \d+ more$/);
  });
});
