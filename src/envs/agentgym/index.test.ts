import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import type { Env } from '../env.ts';
import { envEntry } from '../registry.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { AgentGymAlfWorldEnv } from './alfworld-client.ts';
import { AGENTGYM_DIALECTS, GENERIC_DIALECT } from './dialects.ts';
import { AgentGymGenericEnv } from './generic-client.ts';
import { parseAgentGymRef } from './index.ts';
import {
  AGENTGYM_ENVS,
  AGENTGYM_SPLITS,
  AgentGymTaskSource,
  agentgymTask,
  GENERIC_SPLITS,
} from './tasks.ts';
import { AgentGymWebShopEnv } from './webshop-client.ts';

/** The client env inside the entry's wrappers (a TimeLimit around an ObservationLimit). */
const client = (env: Env) => ((env as TimeLimit).env as ObservationLimit).env;

describe('agentgym:NAME@URL', () => {
  it('parses the env name and server URL', () => {
    expect(parseAgentGymRef('agentgym:webshop@http://127.0.0.1:36001')).toEqual({
      name: 'webshop',
      url: 'http://127.0.0.1:36001',
      generic: false,
    });
    expect(parseAgentGymRef('agentgym:maze@http://127.0.0.1:36001/maze')).toEqual({
      name: 'maze',
      url: 'http://127.0.0.1:36001/maze',
      generic: false,
    });
    expect(parseAgentGymRef('agentgym:generic:my-game_2@http://h:1')).toEqual({
      name: 'my-game_2',
      url: 'http://h:1',
      generic: true,
    });
    expect(parseAgentGymRef('agentgym:alfworld@https://envs.example.org/alfworld/').url).toBe(
      'https://envs.example.org/alfworld/',
    );
  });

  it('says what to write for a wrong name or URL', () => {
    expect(() => parseAgentGymRef('agentgym:webshop')).toThrow(
      /names no AgentGym server; write agentgym:NAME@http:\/\/HOST:PORT with NAME one of webshop, alfworld, textcraft, .*, or agentgym:generic:NAME@http:\/\/HOST:PORT for another server\./,
    );
    expect(() => parseAgentGymRef('agentgym:frobworld@http://h:1')).toThrow(
      `unknown AgentGym env "frobworld" in "agentgym:frobworld@http://h:1"; known: ${AGENTGYM_ENVS.join(', ')}. A server that speaks AgentGym's common protocol (POST /create, /reset {id, data_idx}, /step {id, action}, /close {id}; GET /observation?id=, and /available_actions?id= if it lists actions) runs as agentgym:generic:frobworld@http://h:1.`,
    );
    expect(() => parseAgentGymRef('agentgym:generic@http://h:1')).toThrow(
      /names no env: write agentgym:generic:NAME@http:\/\/h:1/,
    );
    expect(() => parseAgentGymRef('agentgym:generic:textcraft@http://h:1')).toThrow(
      '"textcraft" in "agentgym:generic:textcraft@http://h:1" is a known AgentGym server: write agentgym:textcraft@http://h:1 to speak its own protocol.',
    );
    expect(() => parseAgentGymRef('agentgym:generic:My Game@http://h:1')).toThrow(
      /"My Game" .* is not an env name: use lowercase letters, digits/,
    );
    expect(() => parseAgentGymRef('agentgym:webshop@127.0.0.1:36001')).toThrow(ConfigError);
    expect(() => parseAgentGymRef('agentgym:webshop@ftp://h/')).toThrow(/not an http\(s\) URL/);
  });

  it('takes #timeout=SECONDS, the time to wait for one answer: 30 s by default', () => {
    expect(parseAgentGymRef('agentgym:webshop@http://127.0.0.1:36001/#timeout=300')).toEqual({
      name: 'webshop',
      url: 'http://127.0.0.1:36001/',
      generic: false,
      timeoutMs: 300_000,
    });
    const limit = (ref: string) =>
      (
        client(envEntry(ref).make({})) as AgentGymWebShopEnv & {
          http: { options: { timeoutMs: number } };
        }
      ).http.options.timeoutMs;
    expect(limit('agentgym:webshop@http://h:1#timeout=5')).toBe(5_000);
    expect(limit('agentgym:alfworld@http://h:1')).toBe(30_000);
    expect(limit('agentgym:generic:game@http://h:1#timeout=0.5')).toBe(500);
    expect(() => parseAgentGymRef('agentgym:maze@http://h:1#timeout=soon')).toThrow(
      '"#timeout=soon" in "agentgym:maze@http://h:1#timeout=soon": the timeout is a number of seconds above 0, e.g. #timeout=120.',
    );
  });

  it('gives up on a server that never answers within #timeout, naming it', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const env = envEntry(`agentgym:generic:game@http://127.0.0.1:${port}#timeout=0.2`).make({});
    const started = Date.now();
    try {
      await expect(env.reset()).rejects.toThrow(
        /POST \/create timed out after 200 ms\. The server may be busy or stuck: check its log, or allow more time with #timeout=SECONDS after the server's URL \(agentgym:NAME@URL#timeout=300; http\.timeoutMs in code\)\./,
      );
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await env.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('resolves through the registry to remote envs inside AgentGym step limits', () => {
    const webshop = envEntry('agentgym:webshop@http://127.0.0.1:36001/');
    expect(webshop.remote).toBe(true);
    const env = webshop.make({}) as TimeLimit;
    expect(env).toBeInstanceOf(TimeLimit);
    expect(env.maxSteps).toBe(15);
    expect(env.env).toBeInstanceOf(ObservationLimit);
    expect((env.env as ObservationLimit).maxChars).toBe(20_000);
    expect(client(env)).toBeInstanceOf(AgentGymWebShopEnv);
    expect((client(env) as AgentGymWebShopEnv).url).toBe('http://127.0.0.1:36001');
    expect(env.name).toBe('agentgym:webshop');

    const alfworld = envEntry('agentgym:alfworld@http://127.0.0.1:36002').make({});
    expect((alfworld as TimeLimit).maxSteps).toBe(50);
    expect(client(alfworld)).toBeInstanceOf(AgentGymAlfWorldEnv);
    const shorter = envEntry('agentgym:alfworld@http://127.0.0.1:36002').make({ maxSteps: 20 });
    expect((shorter as TimeLimit).maxSteps).toBe(20);
  });

  it('resolves every other server to the table-driven client, named by its family', () => {
    const limits = Object.fromEntries(
      AGENTGYM_ENVS.map((name) => [name, envEntry(`agentgym:${name}@http://h:1`).maxSteps]),
    );
    expect(limits).toEqual({
      ...{ webshop: 15, alfworld: 50, textcraft: 30, babyai: 20, sciworld: 30, sqlgym: 1 },
      ...{ maze: 15, wordle: 8, weather: 10, movie: 12, todo: 15, academia: 12, sheet: 15 },
      searchqa: 30,
    });
    const entry = envEntry('agentgym:sciworld@http://127.0.0.1:36003');
    expect(entry).toMatchObject({ name: 'agentgym:sciworld', remote: true, maxSteps: 30 });
    expect(entry.description).toMatch(/^ScienceWorld .*, at http:\/\/127\.0\.0\.1:36003$/);
    const env = entry.make({ split: 'test' }) as TimeLimit;
    expect(client(env)).toBeInstanceOf(AgentGymGenericEnv);
    expect((client(env) as AgentGymGenericEnv).dialect).toBe(AGENTGYM_DIALECTS.sciworld);
    expect(env.name).toBe('agentgym:sciworld');
    expect(envEntry('agentgym:webshop@http://h:1').name).toBe('agentgym:webshop');
    const url = 'http://h:1';
    expect(new AgentGymGenericEnv('maze', { url }).dialect).toBe(AGENTGYM_DIALECTS.maze);
    expect(new AgentGymGenericEnv('toString', { url }).dialect).toBe(GENERIC_DIALECT);

    const generic = envEntry('agentgym:generic:beacon@http://h:1/');
    expect(generic).toMatchObject({ name: 'agentgym:beacon', maxSteps: 30 });
    expect(generic.description).toBe(
      "beacon, a server speaking AgentGym's common protocol, at http://h:1/",
    );
    const made = generic.make({ maxObservationChars: 300 }) as TimeLimit;
    expect((made.env as ObservationLimit).maxChars).toBe(300);
    expect((client(made) as AgentGymGenericEnv).dialect).toBe(GENERIC_DIALECT);
    expect(
      generic
        .tasks({})
        .tasks('test', 2)
        .map((t) => t.id),
    ).toEqual(['agentgym:beacon/0', 'agentgym:beacon/1']);
  });

  it('points unknown env names at the agentgym form', () => {
    expect(() => envEntry('alfworld')).toThrow(/agentgym:NAME@URL for an AgentGym server/);
  });
});

describe('AgentGym task splits', () => {
  it("use the servers' numbering: ALFWorld train 0–2419 then test 2420–2619", () => {
    const alfworld = new AgentGymTaskSource('alfworld');
    const test = alfworld.tasks('test');
    expect(test).toHaveLength(200);
    expect(test[0]).toEqual(agentgymTask('alfworld', 2420));
    expect(test.at(-1)?.spec).toEqual({ index: 2619 });
    expect(alfworld.tasks('train')).toHaveLength(2420);
    expect(new AgentGymTaskSource('webshop').tasks('test', 3).map((t) => t.id)).toEqual([
      'agentgym:webshop/0',
      'agentgym:webshop/1',
      'agentgym:webshop/2',
    ]);
  });

  it('draw a fixed task per seed from the split, within its range', () => {
    const source = new AgentGymTaskSource('webshop');
    const { start, end } = AGENTGYM_SPLITS.webshop.train;
    const draws = Array.from({ length: 50 }, (_, seed) => source.draw('train', seed).spec?.index);
    for (const index of draws) {
      expect(index).toBeGreaterThanOrEqual(start);
      expect(index).toBeLessThan(end);
    }
    expect(new Set(draws).size).toBeGreaterThan(40);
    expect(source.draw('train', 7)).toEqual(source.draw('train', 7));
    const custom = new AgentGymTaskSource('webshop', { test: { start: 500, end: 502 } });
    expect(custom.draw('test', 1).spec?.index).toBeGreaterThanOrEqual(500);
    expect(custom.splits.train).toEqual(AGENTGYM_SPLITS.webshop.train);
  });

  it("use the ranges AgentGym's READMEs publish, and documented sizes elsewhere", () => {
    const ranges = (name: string) => new AgentGymTaskSource(name).splits;
    expect(ranges('sqlgym')).toEqual({
      train: { start: 0, end: 9428 },
      test: { start: 9428, end: 10962 },
    });
    expect(ranges('searchqa').test).toEqual({ start: 0, end: 51713 });
    expect(ranges('textcraft')).toEqual({
      test: { start: 0, end: 100 },
      train: { start: 100, end: 474 },
    });
    expect(ranges('weather').train).toEqual({ start: 20, end: 343 });
    expect(ranges('academia').train).toEqual(ranges('academia').test);
    expect(ranges('my-own-game')).toEqual(GENERIC_SPLITS);
    for (const name of AGENTGYM_ENVS) {
      const { train, test } = AGENTGYM_SPLITS[name];
      const overlap = train.start < test.end && test.start < train.end;
      expect(overlap, name).toBe(['academia', 'sheet', 'maze'].includes(name));
    }
  });

  it('refuse bad ranges and requests past the end of a split', () => {
    expect(() => new AgentGymTaskSource('webshop', { test: { start: 5, end: 5 } })).toThrow(
      /0 ≤ start < end, got 5–5/,
    );
    expect(() => new AgentGymTaskSource('alfworld').tasks('test', 201)).toThrow(
      'the AgentGym alfworld test split has 200 tasks (indices 2420–2619); asked for 201.',
    );
    expect(() => agentgymTask('webshop', -1)).toThrow(ConfigError);
  });
});
