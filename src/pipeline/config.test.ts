import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { loadRunConfig, parseRunConfig } from './config.ts';
import { makeExperienceModel } from './experience-model.ts';

describe('run config', () => {
  it('fills every default from an empty config', () => {
    const config = parseRunConfig({});
    expect(config.env).toBe('webshop');
    expect(config.offline.episodes).toBe(500);
    expect(config.experienceModel).toMatchObject({ kind: 'llm-free', k: 4, history: true });
    // Co-evolution is on unless a config freezes the buffer.
    expect(config.experienceModel).toMatchObject({ writeBack: true, realShare: 0.75 });
    expect(config.train.algo).toBe('grpo');
    expect(config.s2r).toBeUndefined();
  });

  it('branches no rollout unless told, and checks the branching it is given', () => {
    expect(parseRunConfig({}).train.branching).toEqual({ share: 0, horizon: 5, pick: 'uniform' });
    const config = parseRunConfig({ train: { branching: { share: 0.5, pick: 'divergence' } } });
    expect(config.train.branching).toEqual({ share: 0.5, horizon: 5, pick: 'divergence' });
    expect(() => parseRunConfig({ train: { branching: { share: 1.5 } } })).toThrow(
      /train\.branching\.share/,
    );
    expect(() => parseRunConfig({ train: { branching: { pick: 'failures' } } })).toThrow(
      /train\.branching\.pick/,
    );
  });

  it('starts from scratch without selection unless told, and checks BC starts and keepBest', () => {
    expect(parseRunConfig({}).train).toMatchObject({ start: 'scratch', klCoef: 0 });
    expect(parseRunConfig({}).train.keepBest).toBeUndefined();
    const recipe = parseRunConfig({ train: { start: 'bc', klCoef: 5, keepBest: {} } });
    expect(recipe.train).toMatchObject({
      start: 'bc',
      klCoef: 5,
      keepBest: { validationTasks: 50 },
    });
    expect(() => parseRunConfig({ train: { keepBest: {} }, evaluation: { every: 0 } })).toThrow(
      /keepBest chooses among evaluations; set evaluation\.every/,
    );
    expect(() => parseRunConfig({ train: { algo: 'dpo', start: 'bc' } })).toThrow(
      /a DPO run always starts from behaviour cloning/,
    );
  });

  it('takes dpo as a method, with its β, and refuses what a DPO run has no use for', () => {
    expect(parseRunConfig({ train: { algo: 'dpo', beta: 0.5 } }).train).toMatchObject({
      algo: 'dpo',
      beta: 0.5,
    });
    expect(() => parseRunConfig({ train: { algo: 'dpo' }, s2r: { realBudget: 100 } })).toThrow(
      /s2r continues a GRPO or PPO run .*drop s2r, or set train\.algo to grpo or ppo/,
    );
    expect(() => parseRunConfig({ train: { beta: 0.5 } })).toThrow(/train\.beta is DPO's β/);
    expect(() => parseRunConfig({ train: { algo: 'dpo', beta: 0 } })).toThrow(/train\.beta/);
  });

  it('names the field and the problem', () => {
    expect(() => parseRunConfig({ train: { algo: 'dqn' } })).toThrow(/train\.algo/);
    expect(() => parseRunConfig({ offline: { epsilon: 2 } })).toThrow(/offline\.epsilon/);
    expect(() => parseRunConfig({ trian: {} })).toThrow(ConfigError);
    expect(() => parseRunConfig({ experienceModel: { kind: 'llm' } })).toThrow(
      /needs url and model .* or gguf/,
    );
  });

  it('picks the LLM-free model by experienceModel.model, refusing one it does not know', async () => {
    expect(parseRunConfig({}).experienceModel.model).toBeUndefined();
    const buffer = SqliteReplayBuffer.open();
    for (const [model, id] of [
      ['generic', 'llm-free/generic'],
      ['nearest', 'llm-free/nearest-neighbor'],
    ] as const) {
      const config = parseRunConfig({ experienceModel: { model } });
      expect((await makeExperienceModel(config.experienceModel, 'webshop', buffer)).id).toBe(id);
    }
    await buffer.close();
    expect(() => parseRunConfig({ experienceModel: { model: 'handmade' } })).toThrow(
      /experienceModel\.model: .*"auto"\|"generic"\|"nearest"/,
    );
    expect(() =>
      parseRunConfig({
        experienceModel: {
          kind: 'llm',
          model: 'generic',
          llm: { url: 'http://127.0.0.1:1/v1', model: 'm' },
        },
      }),
    ).toThrow(/experienceModel\.model picks the LLM-free model .*set kind to llm-free/);
  });

  it('reads YAML and JSON files, naming the file on a syntax error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-config-'));
    writeFileSync(
      join(dir, 'run.yaml'),
      'env: webshop\ntrain:\n  algo: ppo\n  iterations: 3\ns2r:\n  realBudget: 500\n',
    );
    const config = await loadRunConfig(join(dir, 'run.yaml'));
    expect(config.train).toMatchObject({ algo: 'ppo', iterations: 3 });
    expect(config.s2r?.realBudget).toBe(500);
    writeFileSync(join(dir, 'bad.json'), '{"env": ');
    await expect(loadRunConfig(join(dir, 'bad.json'))).rejects.toThrow(
      /bad\.json is not valid JSON/,
    );
    await expect(loadRunConfig(join(dir, 'missing.yaml'))).rejects.toThrow(
      /cannot read run config/,
    );
  });
});
