import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import { sitePlaceholder, substituteSites } from './config.ts';
import { type LoadedConfig, loadWebArenaConfigs, WebArenaConfigError } from './load.ts';

const dir = mkdtempSync(join(tmpdir(), 'webarena-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A minimal valid task config in WebArena's format. */
function task(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    task_id: id,
    sites: ['reddit'],
    require_login: true,
    storage_state: './.auth/reddit_state.json',
    start_url: '__REDDIT__/forums',
    geolocation: null,
    intent_template: 'Open the {{forum}} forum',
    instantiation_dict: { forum: 'books' },
    intent: `Open the books forum (${id})`,
    require_reset: false,
    eval: {
      eval_types: ['url_match'],
      reference_answers: null,
      reference_url: '__REDDIT__/f/books |OR| __REDDIT__/f/Books',
      program_html: [],
      url_note: 'GOLD in PRED',
    },
    intent_template_id: 7,
    ...extra,
  };
}

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

function loadError(path: string): Error {
  try {
    loadWebArenaConfigs(path);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected loading to fail');
}

describe('loadWebArenaConfigs', () => {
  it('reads one task, an array of tasks, and a directory in natural order', () => {
    const one = loadWebArenaConfigs(write('one.json', task(3)));
    expect(one.map((c) => c.config.task_id)).toEqual([3]);
    expect(one[0]?.config.require_login).toBe(true);

    const many = loadWebArenaConfigs(write('lite.json', [task(0), task(1), task(2)]));
    expect(many.map((c) => c.config.task_id)).toEqual([0, 1, 2]);

    const sub = join(dir, 'set');
    mkdirSync(sub);
    for (const id of [10, 2, 1]) writeFileSync(join(sub, `${id}.json`), JSON.stringify(task(id)));
    writeFileSync(join(sub, 'notes.txt'), 'not a config');
    const fromDir = loadWebArenaConfigs(sub);
    expect(fromDir.map((c) => c.config.task_id)).toEqual([1, 2, 10]);
    expect(fromDir[2]?.file).toBe(join(sub, '10.json'));
  });

  it('keeps fields it does not know, and reads a lone must_include string as one entry', () => {
    const [loaded] = loadWebArenaConfigs(
      write('extra.json', {
        ...task(5, { old_task_id: 44 }),
        eval: { eval_types: ['string_match'], reference_answers: { must_include: 'yjlou' } },
      }),
    );
    expect((loaded?.config as Record<string, unknown> | undefined)?.old_task_id).toBe(44);
    expect(loaded?.config.eval.reference_answers?.must_include).toEqual(['yjlou']);
  });

  it('substitutes site placeholders in every URL field', () => {
    const [loaded] = loadWebArenaConfigs(write('sub.json', task(4))) as [LoadedConfig];
    const config = substituteSites(loaded.config, { reddit: 'http://127.0.0.1:9999/' });
    expect(config.start_url).toBe('http://127.0.0.1:9999/forums');
    expect(config.eval.reference_url).toBe(
      'http://127.0.0.1:9999/f/books |OR| http://127.0.0.1:9999/f/Books',
    );
  });

  it("substitutes a config's own site by its __NAME__ placeholder", () => {
    const [loaded] = loadWebArenaConfigs(
      write('own.json', task(6, { sites: ['registry'], start_url: '__REGISTRY__/packages' })),
    ) as [LoadedConfig];
    const config = substituteSites(loaded.config, {
      registry: 'http://127.0.0.1:5000/',
      reddit: 'http://127.0.0.1:9999',
    });
    expect(config.start_url).toBe('http://127.0.0.1:5000/packages');
    expect(sitePlaceholder('registry')).toBe('__REGISTRY__');
    expect(sitePlaceholder('shopping_admin')).toBe('__SHOPPING_ADMIN__');
  });

  it('names the file, the task and the field of a malformed config', () => {
    const file = write('bad-field.json', [task(0), { ...task(1), start_url: 42 }]);
    const error = loadError(file);
    expect(error).toBeInstanceOf(WebArenaConfigError);
    expect(error.message).toContain(`${file}: task 1 (entry 1): field start_url:`);
    expect(error.message).toMatch(/expected string/);

    const noIntent = write('no-intent.json', { ...task(9), intent: undefined });
    expect(loadError(noIntent).message).toContain(`${noIntent}: task 9: field intent:`);

    const badType = write('bad-type.json', {
      ...task(8),
      eval: { eval_types: ['page_image_query'] },
    });
    expect(loadError(badType).message).toContain('field eval.eval_types.0:');
  });

  it('refuses a config whose evaluator could not run, naming what it needs', () => {
    const noUrl = write('no-url.json', {
      ...task(1),
      eval: { eval_types: ['url_match'], reference_url: '' },
    });
    expect(loadError(noUrl).message).toContain(
      'task 1: field eval.reference_url: url_match needs the gold URL',
    );
    const noAnswers = write('no-answers.json', {
      ...task(2),
      eval: { eval_types: ['string_match'], reference_answers: {} },
    });
    expect(loadError(noAnswers).message).toContain(
      'field eval.reference_answers: string_match needs',
    );
    const noContents = write('no-contents.json', {
      ...task(3),
      eval: {
        eval_types: ['program_html'],
        program_html: [{ url: 'last', locator: '', required_contents: {} }],
      },
    });
    expect(loadError(noContents).message).toContain(
      'field eval.program_html.0.required_contents: needs one of exact_match',
    );
  });

  it('refuses bad JSON, a missing path, an empty directory and duplicate task ids', () => {
    const broken = write('broken.json', '{"task_id": 1,');
    expect(loadError(broken).message).toMatch(new RegExp(`^${broken}: not valid JSON`));
    expect(loadError(join(dir, 'missing.json'))).toBeInstanceOf(ConfigError);
    expect(loadError(join(dir, 'missing.json')).message).toContain('no such file or directory');
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(loadError(empty).message).toContain('the directory has no *.json files');
    const dup = join(dir, 'dup');
    mkdirSync(dup);
    writeFileSync(join(dup, 'raw.json'), JSON.stringify([task(1), task(2)]));
    writeFileSync(join(dup, '1.json'), JSON.stringify(task(1)));
    expect(loadError(dup).message).toMatch(/task_id 1 is also in .*1\.json/);
    expect(loadError(write('scalar.json', '3')).message).toContain(
      'expected a task object, found a number',
    );
  });
});
