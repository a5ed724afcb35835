import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Task, Trajectory, Transition } from '../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../envs/env.ts';
import { type SessionCapacity, SlotLedger } from './capacity.ts';
import { SessionLimitError, UnknownSessionError } from './errors.ts';
import type { RecordingOptions } from './session.ts';
import { SessionStore, slotOf } from './sessions.ts';

const TASK: Task = { id: 'count/0', env: 'count', instruction: 'say done', origin: 'seed' };

/** Echoes actions after `delayMs`; `done` terminates, `bad` is invalid. Logs what it did. */
class EchoEnv implements Env {
  readonly name = 'count';
  readonly log: string[] = [];
  closed = false;
  constructor(private readonly delayMs: (action: string) => number = () => 0) {}

  async reset(_options?: ResetOptions): Promise<ResetResult> {
    return { observation: { text: 'start', instruction: TASK.instruction }, info: { task: TASK } };
  }

  async step(action: string): Promise<StepResult> {
    await sleep(this.delayMs(action));
    this.log.push(action);
    const invalid = action === 'bad';
    return {
      observation: { text: invalid ? 'start' : action, instruction: TASK.instruction },
      reward: action === 'done' ? 1 : 0,
      terminated: action === 'done',
      truncated: false,
      info: invalid ? { invalidAction: 'bad is not an action' } : {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function store(
  options: {
    max?: number;
    idleMs?: number;
    maxActionChars?: number;
    recording?: Partial<RecordingOptions>;
  } = {},
) {
  const envs: EchoEnv[] = [];
  let now = 0;
  const sessions = new SessionStore({
    makeEnv: () => {
      const env = new EchoEnv((action) =>
        action === 'hang' ? 500 : action.startsWith('slow') ? 30 : 0,
      );
      envs.push(env);
      return env;
    },
    maxSessions: options.max ?? 4,
    idleTimeoutMs: options.idleMs ?? 1000,
    ...(options.maxActionChars !== undefined && { maxActionChars: options.maxActionChars }),
    recording: {
      provenance: 'real-online',
      policyId: 'remote',
      warn: () => {},
      ...options.recording,
    },
    clock: () => now,
  });
  return { sessions, envs, advance: (ms: number) => (now += ms) };
}

describe('SessionStore', () => {
  it('refuses sessions past the cap, naming it, until one closes', async () => {
    const { sessions } = store({ max: 2 });
    const a = await sessions.create();
    await sessions.create();
    await expect(sessions.create()).rejects.toBeInstanceOf(SessionLimitError);
    await expect(sessions.create()).rejects.toThrow(
      /all 2 sessions are in use \(--max-sessions 2\)/,
    );
    expect(await sessions.close(a.id)).toBe(true);
    expect(await sessions.close(a.id)).toBe(false);
    await sessions.create();
    expect(sessions.size).toBe(2);
  });

  it('stores sharing one capacity (the workers of a server) share its cap; a failed env frees its slot', async () => {
    const ledger = new SlotLedger(3);
    const shared = (worker: number): SessionCapacity => ({
      max: 3,
      acquire: async () => ledger.take(worker),
      release: () => ledger.give(worker),
    });
    let failing = false;
    const make = (worker: number) =>
      new SessionStore({
        makeEnv: () => {
          if (failing) throw new Error('no env today');
          return new EchoEnv();
        },
        maxSessions: 3,
        idleTimeoutMs: 0,
        recording: { provenance: 'real-online', policyId: 'remote', warn: () => {} },
        capacity: shared(worker),
      });
    const [a, b] = [make(0), make(1)];
    const first = await a.create();
    await b.create();
    await b.create();
    await expect(a.create()).rejects.toThrow(/all 3 sessions are in use \(--max-sessions 3\)/);
    await a.close(first.id);
    failing = true;
    await expect(a.create()).rejects.toThrow('no env today');
    expect(ledger.inUse).toBe(2);
    failing = false;
    await a.create();
    expect(ledger.inUse).toBe(3);
    // A worker that died gives back every slot it held.
    ledger.drop(1);
    expect(ledger.inUse).toBe(1);
  });

  it('with an id slot, gives only ids of that slot, so another worker can tell whose they are', async () => {
    const sessions = new SessionStore({
      makeEnv: () => new EchoEnv(),
      maxSessions: 50,
      idleTimeoutMs: 0,
      recording: { provenance: 'real-online', policyId: 'remote', warn: () => {} },
      idSlot: { index: 2, count: 3 },
    });
    const ids = await Promise.all(
      Array.from({ length: 50 }, async () => (await sessions.create()).id),
    );
    expect(ids.map((id) => slotOf(id, 3))).toEqual(Array(50).fill(2));
    expect(ids.every((id) => id >= 0 && id < 2 ** 31 - 1)).toBe(true);
  });

  it('gives random ids; an unknown id is a clear error', async () => {
    const { sessions } = store();
    const ids = [(await sessions.create()).id, (await sessions.create()).id];
    expect(new Set(ids).size).toBe(2);
    expect(() => sessions.get(-5)).toThrow(UnknownSessionError);
    expect(() => sessions.get(-5)).toThrow(
      /no open session -5: .*reaped after 1 s without requests/,
    );
  });

  it('reaps sessions idle past the timeout, closing their envs and telling listeners', async () => {
    const { sessions, envs, advance } = store({ idleMs: 1000 });
    const idle = await sessions.create();
    const active = await sessions.create();
    const reasons: string[] = [];
    idle.onClose((reason) => reasons.push(reason));
    advance(600);
    await active.reset({});
    advance(600);
    expect(await sessions.reapIdle()).toEqual([idle.id]);
    expect(sessions.ids()).toEqual([active.id]);
    expect(envs[0]?.closed).toBe(true);
    expect(reasons).toEqual(['idle for over 1 s']);
  });

  it('never reaps a session while a call is running', async () => {
    const { sessions, advance } = store({ idleMs: 10 });
    const session = await sessions.create();
    await session.reset({});
    const slow = session.step('slow');
    advance(1000);
    expect(await sessions.reapIdle()).toEqual([]);
    await slow;
  });

  it('with timeout 0 keeps idle sessions', async () => {
    const { sessions, advance } = store({ idleMs: 0 });
    await sessions.create();
    advance(10 ** 9);
    expect(await sessions.reapIdle()).toEqual([]);
  });

  it("runs the reaper on an unref'd timer", async () => {
    const sessions = new SessionStore({
      makeEnv: () => new EchoEnv(),
      maxSessions: 1,
      idleTimeoutMs: 40,
      recording: { provenance: 'real-online', policyId: 'remote', warn: () => {} },
    });
    await sessions.create();
    sessions.startReaper();
    for (let waited = 0; sessions.size > 0 && waited < 5000; waited += 20) await sleep(20);
    expect(sessions.size).toBe(0);
    await sessions.closeAll();
  });
});

describe('Session', () => {
  it('runs calls in arrival order, one at a time', async () => {
    const { sessions, envs } = store();
    const session = await sessions.create();
    const reset = session.reset({});
    const steps = [session.step('slow 1'), session.step('fast 2'), session.step('slow 3')];
    await reset;
    await Promise.all(steps);
    expect(envs[0]?.log).toEqual(['slow 1', 'fast 2', 'slow 3']);
  });

  it('reports each transition and each finished episode as a trajectory', async () => {
    const transitions: Transition[] = [];
    const episodes: Trajectory[] = [];
    const { sessions } = store({
      recording: {
        provenance: 'synthetic',
        policyId: 'trainer-7',
        onTransition: (t) => void transitions.push(t),
        onEpisode: (t) => void episodes.push(t),
      },
    });
    const session = await sessions.create();
    await session.reset({ seed: 4 }, 'episode-a');
    await session.step('bad');
    await session.step('go');
    expect(episodes).toEqual([]);
    await session.step('done');
    expect(transitions.map((t) => [t.t, t.state.text, t.action, t.nextState.text])).toEqual([
      [0, 'start', 'bad', 'start'],
      [1, 'start', 'go', 'go'],
      [2, 'go', 'done', 'done'],
    ]);
    expect(episodes).toHaveLength(1);
    expect(episodes[0]).toMatchObject({
      id: 'episode-a',
      env: 'count',
      task: TASK,
      provenance: 'synthetic',
      policyId: 'trainer-7',
      seed: 4,
      initial: { text: 'start' },
    });
    expect(episodes[0]?.steps.map((s) => [s.action, s.reward, s.terminated])).toEqual([
      ['bad', 0, false],
      ['go', 0, false],
      ['done', 1, true],
    ]);
    expect(sessions.stats).toEqual({
      sessionsOpened: 1,
      episodesStarted: 1,
      episodesFinished: 1,
      episodesAbandoned: 0,
      steps: 3,
    });
  });

  it('refuses an action over the limit before the env, and records it clipped, never whole', async () => {
    const episodes: Trajectory[] = [];
    const transitions: Transition[] = [];
    const { sessions, envs } = store({
      maxActionChars: 50,
      recording: {
        onTransition: (t) => void transitions.push(t),
        onEpisode: (t) => void episodes.push(t),
      },
    });
    const session = await sessions.create();
    await session.reset({}, 'ep');
    const long = `search[${'x'.repeat(10_000)}]`;
    const refused = await session.step(long);
    expect(refused).toMatchObject({ reward: 0, terminated: false, truncated: false });
    expect(refused.observation.text).toBe('start');
    const why = refused.info.invalidAction as string;
    expect(why).toMatch(
      /^the action is 10,008 characters, over the limit of 50 \(--max-action-chars\); nothing was done: "search\[x+…" \(10,008 characters\)\. Send a shorter action\.$/,
    );
    expect(why.length).toBeLessThan(300);
    expect(envs[0]?.log).toEqual([]);
    await session.step('x'.repeat(50));
    await session.step('done');
    expect(envs[0]?.log).toEqual(['x'.repeat(50), 'done']);
    expect(transitions[0]?.action).toBe(long.slice(0, 50));
    expect(episodes[0]?.steps.map((step) => step.action.length)).toEqual([50, 50, 4]);
    expect(JSON.stringify(episodes).length).toBeLessThan(2_000);
  });

  it('closing all reports an episode abandoned at once, its step under way discarded, and waits for its env only the grace', async () => {
    const abandoned: Array<{ steps: number; reason: string }> = [];
    const warnings: string[] = [];
    const { sessions, envs } = store({
      recording: {
        warn: (m) => warnings.push(m),
        onAbandoned: (trajectory, reason) => {
          abandoned.push({ steps: trajectory.steps.length, reason });
        },
      },
    });
    const session = await sessions.create();
    await session.reset({}, 'ep');
    await session.step('a');
    const stepping = session.step('hang').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await sleep(5); // the step is in the env
    await sessions.closeAll('server shutting down', 5);
    expect(abandoned).toEqual([{ steps: 1, reason: 'server shutting down' }]);
    expect(envs[0]?.closed).toBe(false);
    expect(sessions.envsClosing).toBe(1);
    expect(warnings).toEqual([expect.stringMatching(/^1 envs were still in a call 0.005 s after/)]);
    expect(await stepping).toMatch(/was closed while this call ran/);
    await sleep(1);
    expect(envs[0]?.closed).toBe(true);
    expect(sessions.envsClosing).toBe(0);
  });

  it('a failing hook is reported and does not fail the step', async () => {
    const warnings: string[] = [];
    const { sessions } = store({
      recording: {
        warn: (m) => warnings.push(m),
        onEpisode: () => {
          throw new Error('disk full');
        },
      },
    });
    const session = await sessions.create();
    await session.reset({}, 'ep');
    const result = await session.step('done');
    expect(result.terminated).toBe(true);
    expect(warnings).toEqual([
      `session ${session.id}: recording failed (disk full); the step was served but episode ep may be missing from the record.`,
    ]);
  });
});
