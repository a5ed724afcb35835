import { describe, expect, it } from 'vitest';
import type { Observation, Trajectory } from '../core/types.ts';
import type { Policy } from '../policy/policy.ts';
import {
  expertPreferencePairs,
  offlinePreferencePairs,
  type PreferencePair,
  pairDecisions,
} from './preference-pairs.ts';

const page = (text: string, actions: string[], instruction = 'get the key'): Observation => ({
  text,
  instruction,
  actions,
});

/** An episode of `task` through `states` (one more than `actions`), rewarded `reward` at the end. */
function episode(
  id: string,
  task: string,
  states: Observation[],
  actions: string[],
  reward: number,
): Trajectory {
  return {
    id,
    env: 'rooms',
    task: { id: task, env: 'rooms', instruction: 'get the key', origin: 'seed' },
    initial: states[0] as Observation,
    steps: actions.map((action, i) => ({
      action,
      observation: states[i + 1] as Observation,
      reward: i === actions.length - 1 ? reward : 0,
      terminated: i === actions.length - 1,
      truncated: false,
    })),
    provenance: 'real-offline',
    policyId: 'expert(eps=0.3)',
    startedAt: '',
    endedAt: '',
  };
}

// Task a: hall → (go north) → room → (take key) succeeds; (take lamp) fails.
const hall = page('a hall', ['go north', 'go south']);
const room = page('a room with a key and a lamp', ['take key', 'take lamp']);
const done = page('done', []);
const south = page('a dead end', ['go north']);
// Task b: another hall text; one success goes south then north, another goes north directly.
const hallB = page('hall b', ['go north', 'go south']);
const roomB = page('room b', ['take key', 'take lamp']);

const data: Trajectory[] = [
  episode('a-win', 'a', [hall, room, done], ['go north', 'take key'], 1),
  episode('a-lose', 'a', [hall, room, done], ['go north', 'take lamp'], 0),
  episode('a-lost-south', 'a', [hall, south], ['go south'], 0),
  episode('b-win-1', 'b', [hallB, roomB, done], ['go north', 'take key'], 1),
  episode('b-win-2', 'b', [hallB, roomB, done], ['go north', 'take key'], 1),
  episode(
    'b-win-3',
    'b',
    [hallB, south, hallB, roomB, done],
    ['go south', 'go north', 'go north', 'take key'],
    1,
  ),
  episode('b-lose', 'b', [hallB, roomB, done], ['go north', 'take lamp'], 0),
  // A failure in a state no success saw: no pair.
  episode('c-lose', 'c', [page('hall c', ['wait'])], [], 0),
];

/** A pair as (task, observation text, history, chosen, rejected, source). */
const summary = (p: PreferencePair) =>
  [
    p.taskId,
    p.decision.observation.text,
    p.decision.history.join(' > '),
    p.chosen,
    p.rejected,
    p.source,
  ].join(' | ');

describe('offlinePreferencePairs', () => {
  it('pairs a success against a failure in the same state, and at the first divergence', () => {
    const pairs = offlinePreferencePairs(data, { seed: 1 });
    expect(pairs.map(summary).sort()).toEqual(
      [
        // Same state: the room of task a; the failure took the lamp.
        'a | a room with a key and a lamp | go north | take key | take lamp | same-state',
        // Same state: task a's hall, where the failure went south and the success north.
        'a | a hall |  | go north | go south | same-state',
        // Task b's room: the most frequent winning choice (take key), in b-win-1's context.
        'b | room b | go north | take key | take lamp | same-state',
      ].sort(),
    );
    // Task b's hall: a success went south too, so going south is no mistake there.
    expect(pairs.some((p) => p.taskId === 'b' && p.rejected === 'go south')).toBe(false);
  });

  it('adds a divergence pair where the successes chose other than their most frequent action', () => {
    const north = episode('d-win-1', 'd', [hall, room, done], ['go north', 'take key'], 1);
    const north2 = episode('d-win-2', 'd', [hall, room, done], ['go north', 'take key'], 1);
    const south1 = episode('d-win-3', 'd', [hall, south, done], ['go south', 'wait'], 1);
    const fail = episode('d-lose', 'd', [hall, page('lost', [])], ['wave'], 0);
    const pairs = offlinePreferencePairs([north, north2, south1, fail]).map(summary).sort();
    expect(pairs).toEqual([
      'd | a hall |  | go north | wave | same-state',
      'd | a hall |  | go south | wave | divergence',
    ]);
  });

  it('is deterministic given a seed and orders pairs by it', () => {
    const one = offlinePreferencePairs(data, { seed: 5 }).map(summary);
    expect(offlinePreferencePairs(data, { seed: 5 }).map(summary)).toEqual(one);
    const orders = new Set(
      [0, 1, 2, 3, 4, 6, 7].map((seed) =>
        offlinePreferencePairs(data, { seed }).map(summary).join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });

  it('finds nothing in data with one episode per task (the demo collects such data)', () => {
    const once = [data[0], data[2]].map((t, i) => ({
      ...(t as Trajectory),
      task: { ...(t as Trajectory).task, id: `once-${i}` },
    }));
    expect(offlinePreferencePairs(once)).toEqual([]);
  });

  it("scores both actions in the chosen one's context", () => {
    const [pair] = offlinePreferencePairs([data[0], data[1]] as Trajectory[]);
    const [chosen, rejected] = pairDecisions(pair as PreferencePair);
    expect(chosen).toMatchObject({ action: 'take key', history: ['go north'] });
    expect(rejected).toMatchObject({ action: 'take lamp', history: ['go north'] });
    expect(rejected.observation).toBe(chosen.observation);
    expect(pair).toMatchObject({ episodeId: 'a-win', step: 1 });
  });
});

describe('expertPreferencePairs', () => {
  it("pairs the expert's choice against every different action taken, without duplicates", async () => {
    const asked: string[] = [];
    // Takes the key in a room, goes north anywhere else.
    const expert: Policy = {
      id: 'expert(eps=0)',
      act: async (observation, { history }) => {
        asked.push(`${observation.text} after ${history.length}`);
        return { action: observation.actions?.includes('take key') ? 'take key' : 'go north' };
      },
    };
    const pairs = await expertPreferencePairs([data[1], data[2], data[5]] as Trajectory[], expert, {
      seed: 0,
    });
    expect(pairs.map(summary).sort()).toEqual(
      [
        'a | a room with a key and a lamp | go north | take key | take lamp | expert',
        'a | a hall |  | go north | go south | expert',
        'b | hall b |  | go north | go south | expert',
      ].sort(),
    );
    expect(asked).toEqual([
      'a hall after 0',
      'a room with a key and a lamp after 1',
      'a hall after 0',
      'hall b after 0',
      'a dead end after 1',
      'hall b after 2',
      'room b after 3',
    ]);
  });
});
