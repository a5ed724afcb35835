/**
 * The trajectory JSONL format: one trajectory per line, as
 * `{ "format": "dreamgym.trajectory", "version": 1, ...Trajectory }`. See docs/trajectory-format.md.
 *
 * Objects are strict: a field this version does not define is an error rather than silently
 * dropped, so adding a field is a version bump like changing one's meaning.
 */

import { z } from 'zod';
import { DreamGymError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';

/** The `format` tag every line carries. */
export const TRAJECTORY_FORMAT = 'dreamgym.trajectory';

/** The newest format version this code reads and the one it writes. Readers accept versions ≤ this. */
export const TRAJECTORY_FORMAT_VERSION = 1;

/** A trajectory (or a line holding one) is malformed. The message lists each problem as `field.path: problem`. */
export class TrajectoryFormatError extends DreamGymError {
  override name = 'TrajectoryFormatError';
  constructor(readonly problems: string[]) {
    super(summarize(problems));
  }
}

export const observationSchema = z.strictObject({
  text: z.string(),
  instruction: z.string(),
  actions: z.array(z.string()).optional(),
});

export const taskSchema = z.strictObject({
  id: z.string().min(1),
  env: z.string().min(1),
  instruction: z.string(),
  spec: z.record(z.string(), z.unknown()).optional(),
  origin: z.enum(['seed', 'generated']),
  parentId: z.string().optional(),
});

/** Envs may add their own info fields, so `info` keeps unknown keys. */
export const stepInfoSchema = z.looseObject({
  invalidAction: z.string().optional(),
  truncatedBy: z.string().optional(),
  unjudged: z.boolean().optional(),
  uncertainty: z.number().min(0).max(1).optional(),
});

export const stepSchema = z.strictObject({
  action: z.string(),
  observation: observationSchema,
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  reasoning: z.string().optional(),
  info: stepInfoSchema.optional(),
});

const isoDateTime = z.iso.datetime({ offset: true });

/** A whole trajectory, including the invariants between its fields. */
export const trajectorySchema = z
  .strictObject({
    id: z.string().min(1),
    env: z.string().min(1),
    task: taskSchema,
    initial: observationSchema,
    steps: z.array(stepSchema),
    provenance: z.enum(['real-offline', 'real-online', 'synthetic']),
    policyId: z.string().min(1),
    seed: z.number().int().optional(),
    startedAt: isoDateTime,
    endedAt: isoDateTime,
  })
  .superRefine((trajectory, ctx) => {
    if (trajectory.task.env !== trajectory.env) {
      ctx.addIssue({
        code: 'custom',
        path: ['task', 'env'],
        message: `task is for env "${trajectory.task.env}" but the trajectory is from env "${trajectory.env}"`,
      });
    }
    const last = trajectory.steps.length - 1;
    trajectory.steps.forEach((step, i) => {
      if (step.terminated && step.truncated) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i],
          message:
            'terminated and truncated are both true; an episode ends one way (terminated: the task ended; truncated: cut off from outside)',
        });
      }
      for (const how of ['terminated', 'truncated'] as const) {
        if (step[how] && i !== last) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', i, how],
            message: `only the last step may end the episode, but step ${i} of ${last + 1} is ${how}`,
          });
        }
      }
    });
    if (Date.parse(trajectory.endedAt) < Date.parse(trajectory.startedAt)) {
      ctx.addIssue({
        code: 'custom',
        path: ['endedAt'],
        message: `${trajectory.endedAt} is before startedAt ${trajectory.startedAt}`,
      });
    }
  }) satisfies z.ZodType<Trajectory>;

/** Checks a trajectory in memory against the current format; throws {@link TrajectoryFormatError}. */
export function validateTrajectory(value: unknown): Trajectory {
  const result = trajectorySchema.safeParse(value);
  if (!result.success) {
    throw new TrajectoryFormatError(
      result.error.issues.map((issue) => describeIssue(issue, value)),
    );
  }
  return result.data;
}

/** One line of the current format version, without the trailing newline. Validates first. */
export function encodeTrajectory(trajectory: Trajectory): string {
  const valid = validateTrajectory(trajectory);
  return JSON.stringify({
    format: TRAJECTORY_FORMAT,
    version: TRAJECTORY_FORMAT_VERSION,
    ...valid,
  });
}

/**
 * Parses and validates one line of any version up to {@link TRAJECTORY_FORMAT_VERSION}.
 * Throws {@link TrajectoryFormatError} naming the field and the problem.
 */
export function parseTrajectoryLine(text: string): Trajectory {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TrajectoryFormatError([`not valid JSON (${(error as Error).message})`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TrajectoryFormatError([
      `expected a JSON object (one trajectory per line), got ${describeValue(value)}`,
    ]);
  }
  const { format, version, ...trajectory } = value as Record<string, unknown>;
  checkEnvelope(format, version);
  // Version 1 is the only version so far; an older version would be migrated to the current shape here.
  return validateTrajectory(trajectory);
}

function checkEnvelope(format: unknown, version: unknown): void {
  if (format !== TRAJECTORY_FORMAT) {
    throw new TrajectoryFormatError([
      format === undefined
        ? `format: missing; expected "${TRAJECTORY_FORMAT}". Is this a dreamgym trajectory file?`
        : `format: ${describeValue(format)} is not "${TRAJECTORY_FORMAT}". Is this a dreamgym trajectory file?`,
    ]);
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new TrajectoryFormatError([
      version === undefined
        ? 'version: missing; expected a positive integer'
        : `version: expected a positive integer, got ${describeValue(version)}`,
    ]);
  }
  if (version > TRAJECTORY_FORMAT_VERSION) {
    throw new TrajectoryFormatError([
      `version: this line has trajectory format version ${version}, but this dreamgym reads versions up to ${TRAJECTORY_FORMAT_VERSION}. Upgrade dreamgym to read it.`,
    ]);
  }
}

const MAX_PROBLEMS_SHOWN = 5;

function summarize(problems: string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).join('; ');
  const hidden = problems.length - MAX_PROBLEMS_SHOWN;
  return hidden > 0 ? `${shown}; and ${hidden} more` : shown;
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const at = (path: PropertyKey[], problem: string) =>
    path.length === 0 ? problem : `${formatPath(path)}: ${problem}`;
  const value = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return at(issue.path, `missing (expected ${issue.expected})`);
      return at(
        issue.path,
        `expected ${expectedType(issue.expected)}, got ${describeValue(value)}`,
      );
    case 'invalid_value':
      return at(
        issue.path,
        `expected ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(value)}`,
      );
    case 'invalid_format':
      return at(
        issue.path,
        issue.format === 'datetime'
          ? `expected an ISO 8601 date-time such as 2025-01-31T12:00:00.000Z, got ${describeValue(value)}`
          : `expected ${issue.format}, got ${describeValue(value)}`,
      );
    case 'unrecognized_keys':
      return issue.keys
        .map((key) =>
          at(
            [...issue.path, key],
            `unknown field (format version ${TRAJECTORY_FORMAT_VERSION} has no such field)`,
          ),
        )
        .join('; ');
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1)
        return at(issue.path, 'must not be empty');
      return at(issue.path, issue.message);
    default:
      return at(issue.path, issue.message);
  }
}

function expectedType(expected: string): string {
  return expected === 'int' ? 'an integer' : expected;
}

/** `steps[3].observation.text`, the way one would write it in code. */
function formatPath(path: PropertyKey[]): string {
  return path
    .map((key, i) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) return `[${JSON.stringify(name)}]`;
      return i === 0 ? name : `.${name}`;
    })
    .join('');
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return truncate(JSON.stringify(value));
    case 'number':
      return Number.isFinite(value) ? `number ${value}` : String(value);
    case 'object':
      return 'an object';
    case 'undefined':
      return 'nothing';
    default:
      return typeof value;
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
