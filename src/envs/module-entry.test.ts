import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { ConfigError } from '../core/errors.ts';
import { makePolicy } from '../policy/registry.ts';
import { runEnvConformance } from './conformance.ts';
import {
  isModuleRef,
  loadModuleEntry,
  type ModuleEnvEntry,
  parseModuleRef,
} from './module-entry.ts';
import { envEntry, loadedEnvModules, registerEnv, resolveEnvRef } from './registry.ts';

const lamps = join(import.meta.dirname, 'testing', 'lamps-module.ts');

describe('module refs', () => {
  it('are paths and module:PATH#export, never server refs or built-in names', () => {
    for (const ref of ['./my-env.ts', '../envs/desk.js', '/abs/env.mjs', 'env.ts', 'module:x#desk'])
      expect(isModuleRef(ref), ref).toBe(true);
    for (const ref of [
      'webshop',
      'web:forum',
      'agentgym:webshop@http://h/x.js',
      'webarena@./tasks.json',
      'openenv@http://h:1',
    ])
      expect(isModuleRef(ref), ref).toBe(false);
  });

  it('parse to an absolute path and an optional export', () => {
    expect(parseModuleRef('./a/env.ts', '/work')).toEqual({ path: '/work/a/env.ts' });
    expect(parseModuleRef('module:env.js#desk', '/w')).toEqual({
      path: '/w/env.js',
      exportName: 'desk',
    });
    expect(() => parseModuleRef('module:#desk')).toThrow(/names no module file/);
    expect(() => parseModuleRef('./env.ts#not-a-name')).toThrow(/is not an export name/);
  });
});

describe('loadModuleEntry', () => {
  it("loads a TypeScript module's default entry, named by the entry", async () => {
    const entry = await loadModuleEntry(lamps);
    expect(entry.name).toBe('lamps');
    expect(entry.module).toEqual({ path: lamps });
    expect(
      entry
        .tasks({})
        .tasks('train', 3)
        .map((t) => t.id),
    ).toEqual(['lamps-train-0', 'lamps-train-1', 'lamps-train-2']);
  });

  it('loads a named export, and reads a missing name from a made env', async () => {
    expect((await loadModuleEntry(`module:${lamps}#bareLamps`)).name).toBe('lamps-bare');
    expect((await loadModuleEntry(`${lamps}#unnamedLamps`)).name).toBe('lamps');
  });

  it('says what is wrong with a module, and how to fix it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-module-'));
    writeFileSync(
      join(dir, 'broken.ts'),
      "throw new Error('the lamps database is not configured');\n",
    );
    const one =
      "export const NAME = { name: 'NAME', description: 'd', maxSteps: 3, make: () => null, tasks: () => ({ tasks: () => [] }) };\n";
    writeFileSync(
      join(dir, 'two.mjs'),
      one.replaceAll('NAME', 'first') + one.replaceAll('NAME', 'second'),
    );
    writeFileSync(join(dir, 'none.mjs'), 'export const answer = 42;\n');
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing.ts'), /does not exist/],
      [join(dir, 'broken.ts'), /failed to load: the lamps database is not configured/],
      [join(dir, 'two.mjs'), /exports 2 EnvEntry objects \(first, second\); pick one with module:/],
      [join(dir, 'none.mjs'), /exports no EnvEntry/],
      [`${lamps}#nothing`, /has no export "nothing"; its exports: .*bareLamps/],
      [`${lamps}#notAnEntry`, /is not an EnvEntry: it has no tasks\(options\) function/],
    ];
    for (const [ref, message] of cases) {
      const error = await loadModuleEntry(ref).catch((e: unknown) => e);
      expect(error, ref).toBeInstanceOf(ConfigError);
      expect((error as Error).message, ref).toMatch(message);
    }
    // A JavaScript module with one entry loads without naming it.
    writeFileSync(join(dir, 'one.mjs'), one.replaceAll('NAME', 'solo'));
    expect((await loadModuleEntry(join(dir, 'one.mjs'))).name).toBe('solo');
  });
});

/**
 * A user's project as `npm init -y` makes it (`"type": "commonjs"`), with no type, or an ES module
 * one: src/ holds TypeScript entries importing a relative helper and `esm-dep`, an ES module package
 * that awaits at top level as dreamgym's graph does (vega-canvas).
 */
function userProject(type: 'commonjs' | 'module' | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), `dg-project-${type ?? 'untyped'}-`));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'user', version: '1.0.0', ...(type && { type }) }),
  );
  const dep = join(dir, 'node_modules', 'esm-dep');
  mkdirSync(dep, { recursive: true });
  writeFileSync(
    join(dep, 'package.json'),
    '{ "name": "esm-dep", "type": "module", "main": "index.js" }',
  );
  writeFileSync(
    join(dep, 'index.js'),
    'await Promise.resolve();\nexport class Marker {}\nexport const maxSteps = 3;\n',
  );
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'src', 'helper.ts'),
    "export const description: string = 'from the helper';\n",
  );
  const entry = (name: string, helper: string) =>
    `import { Marker, maxSteps } from 'esm-dep';\nimport { description } from '${helper}';\n` +
    `const tasks = () => ({ tasks: (): never[] => [] });\n` +
    `export default { name: '${name}', description, maxSteps, make: () => null, tasks, marker: Marker };\n`;
  writeFileSync(join(dir, 'src', 'entry.ts'), entry('plain-ts', './helper'));
  writeFileSync(join(dir, 'src', 'entry.mts'), entry('mts', './helper.ts'));
  // CommonJS by name: it can require CommonJS, and says what to do when it requires an ES module.
  writeFileSync(join(dir, 'src', 'helper.cts'), "export const description: string = 'cts';\n");
  writeFileSync(
    join(dir, 'src', 'entry.cts'),
    "import { description } from './helper.cts';\nconst dirname: string = __dirname;\n" +
      "export default { name: 'cts', description: description + ' in ' + dirname, maxSteps: 2, make: () => null, tasks: () => ({ tasks: () => [] }) };\n",
  );
  writeFileSync(
    join(dir, 'src', 'needs-esm.cts'),
    "export { Marker as default } from 'esm-dep';\n",
  );
  return dir;
}

/**
 * Loads the project's entries with `loadModuleEntry` in a fresh Node, as the compiled CLI does (the
 * test itself runs under vitest, whose own loader would hide Node's), after importing `esm-dep`
 * itself: an entry must see that same instance, as a user's module must see the CLI's dreamgym.
 */
async function loadInNode(dir: string): Promise<Record<string, unknown>> {
  const require = createRequire(import.meta.url);
  const script = `
    import { Marker } from 'esm-dep';
    const { loadModuleEntry } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'module-entry.ts')).href)});
    const out = {};
    for (const file of ['./src/entry.ts', './src/entry.mts', './src/entry.cts', './src/needs-esm.cts']) {
      try {
        const entry = await loadModuleEntry(file);
        out[file] = { name: entry.name, description: entry.description, sameDep: entry.marker === Marker };
      } catch (error) {
        out[file] = { error: error.message };
      }
    }
    console.log(JSON.stringify(out));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      pathToFileURL(require.resolve('tsx/esm')).href,
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: dir },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe("a user's TypeScript module in their own project", () => {
  it(
    'loads as an ES module whatever the package type, sharing the loaded dependencies',
    async () => {
      for (const type of ['commonjs', undefined, 'module'] as const) {
        const loaded = await loadInNode(userProject(type));
        expect(loaded['./src/entry.ts'], type).toEqual({
          name: 'plain-ts',
          description: 'from the helper',
          sameDep: true,
        });
        expect(loaded['./src/entry.mts'], type).toEqual({
          name: 'mts',
          description: 'from the helper',
          sameDep: true,
        });
        expect(loaded['./src/entry.cts'], type).toMatchObject({
          name: 'cts',
          description: /^cts in \//,
        });
        expect((loaded['./src/needs-esm.cts'] as { error: string }).error, type).toMatch(
          /is CommonJS, .*name it \.ts or \.mts/s,
        );
      }
    },
    spawningTestTimeout(3),
  );
});

describe('a loaded module in the registry', () => {
  it('is known by its family name everywhere envEntry is asked', async () => {
    expect(await resolveEnvRef(lamps)).toBe('lamps');
    expect(envEntry('lamps').description).toMatch(/switch on the asked lamp/);
    expect(loadedEnvModules()).toContain(`module:${lamps}`);
    // Loading the same module again is the same env, not a clash.
    expect(await resolveEnvRef(`module:${lamps}`)).toBe('lamps');
    expect(await resolveEnvRef(`synthetic:${lamps}`)).toBe('synthetic:lamps');
  });

  it('resolves relative paths against the given folder', async () => {
    expect(await resolveEnvRef('./testing/lamps-module.ts', import.meta.dirname)).toBe('lamps');
    expect(resolve(import.meta.dirname, './testing/lamps-module.ts')).toBe(lamps);
  });

  it("refuses a name taken by a built-in or by another module's entry", async () => {
    const entry = await loadModuleEntry(lamps);
    expect(() => registerEnv({ ...entry, name: 'webshop' })).toThrow(
      /"webshop" is taken by a built-in env/,
    );
    await resolveEnvRef(lamps);
    const elsewhere: ModuleEnvEntry = { ...entry, module: { path: '/elsewhere.ts' } };
    expect(() => registerEnv(elsewhere)).toThrow(/"lamps" is taken by another registered env/);
  });

  it('names the fix when code asks for a module it has not loaded', () => {
    expect(() => envEntry('./not-loaded.ts')).toThrow(/await resolveEnvRef/);
  });

  it("gives the module's expert to makePolicy('expert'), and names the alternatives where there is none", async () => {
    await resolveEnvRef(lamps);
    await resolveEnvRef(`${lamps}#bareLamps`);
    expect(makePolicy('expert', { env: 'lamps', epsilon: 0.2 }).id).toBe('lamps-expert(eps=0.2)');
    expect(() => makePolicy('expert', { env: 'lamps-bare' })).toThrow(
      /has no scripted expert .*random, llm .* a saved policy's folder, .*--data FILE/,
    );
  });
});

runEnvConformance(
  {
    name: 'a module env (lamps)',
    makeEnv: async () => (await loadModuleEntry(lamps)).make({}),
    solve: async (observation, task) => {
      const wanted = `switch_on[${task.spec?.target as string}]`;
      return observation.actions?.includes(wanted) ? wanted : 'finish';
    },
  },
  { describe, it },
);

describe('a server ref in the registry', () => {
  it('is registered under the family its data carries, so the data finds the server again', async () => {
    const config = join(import.meta.dirname, 'mcp', 'testing', 'library-stdio.json');
    expect(await resolveEnvRef(`mcp@${config}`)).toBe('mcp:library');
    expect(envEntry('mcp:library').description).toBe(envEntry(`mcp@${config}`).description);
    expect(await resolveEnvRef(`synthetic:mcp@${config}`)).toBe('synthetic:mcp:library');
    // Resolving the same ref again is the same env; a built-in name resolves to itself.
    expect(await resolveEnvRef(`mcp@${config}`)).toBe('mcp:library');
    expect(await resolveEnvRef('webshop')).toBe('webshop');
  });
});
