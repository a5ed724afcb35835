import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { loadRunConfig, parseRunConfig } from './config.ts';

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

  it('names the field and the problem', () => {
    expect(() => parseRunConfig({ train: { algo: 'dqn' } })).toThrow(/train\.algo/);
    expect(() => parseRunConfig({ offline: { epsilon: 2 } })).toThrow(/offline\.epsilon/);
    expect(() => parseRunConfig({ trian: {} })).toThrow(ConfigError);
    expect(() => parseRunConfig({ experienceModel: { kind: 'llm' } })).toThrow(
      /needs url and model .* or gguf/,
    );
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
