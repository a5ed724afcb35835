import { describe, expect, it } from 'vitest';
import { ConfigError, TaskError } from '../../../core/errors.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from './config.ts';
import { WebArenaTaskSource, webarenaTask, webarenaTaskConfig } from './tasks.ts';

function config(id: number, template: number): WebArenaConfig {
  return WebArenaConfigSchema.parse({
    task_id: id,
    sites: ['shopping'],
    start_url: '__SHOPPING__',
    intent: `task ${id}`,
    intent_template_id: template,
    eval: { eval_types: ['string_match'], reference_answers: { exact_match: 'x' } },
  });
}

const configs = Array.from({ length: 60 }, (_, i) => config(i, Math.floor(i / 3)));
const env = 'webarena@lite.json';

describe('WebArenaTaskSource', () => {
  it('makes dreamgym tasks: id webarena:<task_id>, intent as instruction, config as spec', () => {
    const task = webarenaTask(configs[4] as WebArenaConfig, env);
    expect(task).toMatchObject({ id: 'webarena:4', env, instruction: 'task 4', origin: 'seed' });
    expect(webarenaTaskConfig(task, env)).toEqual(configs[4]);
  });

  it('puts every task in both splits by default, in file order', () => {
    const source = new WebArenaTaskSource(configs, { env });
    expect(source.tasks('train').map((t) => t.id)).toEqual(
      configs.map((c) => `webarena:${c.task_id}`),
    );
    expect(source.tasks('test', 2).map((t) => t.id)).toEqual(['webarena:0', 'webarena:1']);
    expect(() => source.tasks('test', 61)).toThrow(/has 60 tasks .*asked for 61/);
    expect(source.draw('test', 7)).toEqual(source.draw('test', 7));
  });

  it('splits by template without sharing a template between train and test', () => {
    const source = new WebArenaTaskSource(configs, { env, splitBy: 'template', testFraction: 0.3 });
    const template = (id: string) => Math.floor(Number(id.split(':')[1]) / 3);
    const train = new Set(source.tasks('train').map((t) => template(t.id)));
    const test = new Set(source.tasks('test').map((t) => template(t.id)));
    expect(train.size + test.size).toBe(20);
    expect([...test].filter((t) => train.has(t))).toEqual([]);
    expect(test.size).toBeGreaterThan(0);
    expect(train.size).toBeGreaterThan(test.size);
  });

  it('refuses bad options and tasks it cannot run', () => {
    expect(() => new WebArenaTaskSource(configs, { env, testFraction: 1 })).toThrow(ConfigError);
    expect(() => new WebArenaTaskSource(configs, { env, splitBy: 'random' as 'none' })).toThrow(
      /unknown WebArena split rule "random"; choose one of none, template/,
    );
    const generated = { id: 'g1', env, instruction: 'x', origin: 'generated' as const };
    expect(() => webarenaTaskConfig(generated, env)).toThrow(TaskError);
    expect(() => webarenaTaskConfig({ ...generated, env: 'webshop' }, env)).toThrow(
      /not "webarena@/,
    );
    expect(() => webarenaTaskConfig({ ...generated, spec: { task_id: 1 } }, env)).toThrow(
      /field sites/,
    );
  });
});
