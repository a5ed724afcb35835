import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { envEntry } from '../registry.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { AgentGymAlfWorldEnv } from './alfworld-client.ts';
import { parseAgentGymRef } from './index.ts';
import { AGENTGYM_SPLITS, AgentGymTaskSource, agentgymTask } from './tasks.ts';
import { AgentGymWebShopEnv } from './webshop-client.ts';

describe('agentgym:NAME@URL', () => {
  it('parses the env name and server URL', () => {
    expect(parseAgentGymRef('agentgym:webshop@http://127.0.0.1:36001')).toEqual({
      name: 'webshop',
      url: 'http://127.0.0.1:36001',
    });
    expect(parseAgentGymRef('agentgym:alfworld@https://envs.example.org/alfworld/').url).toBe(
      'https://envs.example.org/alfworld/',
    );
  });

  it('says what to write for a wrong name or URL', () => {
    expect(() => parseAgentGymRef('agentgym:webshop')).toThrow(
      /names no AgentGym server; write agentgym:webshop@http:\/\/HOST:PORT/,
    );
    expect(() => parseAgentGymRef('agentgym:babyai@http://h:1')).toThrow(
      'unknown AgentGym env "babyai" in "agentgym:babyai@http://h:1"; supported: webshop, alfworld.',
    );
    expect(() => parseAgentGymRef('agentgym:webshop@127.0.0.1:36001')).toThrow(ConfigError);
    expect(() => parseAgentGymRef('agentgym:webshop@ftp://h/')).toThrow(/not an http\(s\) URL/);
  });

  it('resolves through the registry to remote envs inside AgentGym step limits', () => {
    const webshop = envEntry('agentgym:webshop@http://127.0.0.1:36001/');
    expect(webshop.remote).toBe(true);
    const env = webshop.make({}) as TimeLimit;
    expect(env).toBeInstanceOf(TimeLimit);
    expect(env.maxSteps).toBe(15);
    expect(env.env).toBeInstanceOf(AgentGymWebShopEnv);
    expect((env.env as AgentGymWebShopEnv).url).toBe('http://127.0.0.1:36001');
    expect(env.name).toBe('agentgym:webshop');

    const alfworld = envEntry('agentgym:alfworld@http://127.0.0.1:36002').make({});
    expect((alfworld as TimeLimit).maxSteps).toBe(50);
    expect((alfworld as TimeLimit).env).toBeInstanceOf(AgentGymAlfWorldEnv);
    const shorter = envEntry('agentgym:alfworld@http://127.0.0.1:36002').make({ maxSteps: 20 });
    expect((shorter as TimeLimit).maxSteps).toBe(20);
  });

  it('points unknown env names at the agentgym form', () => {
    expect(() => envEntry('alfworld')).toThrow(/agentgym:alfworld@URL for an AgentGym server/);
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
