import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layer order written in the layout section of docs/guide/architecture.md, enforced: no module imports a layer
 * listed after its own, and no two files import each other, directly or through others (type-only
 * imports included: a type cycle is still two files that cannot be understood apart).
 */
const root = import.meta.dirname;

/** `src/` layers as the architecture guide lists them, lowest first. */
function documentedLayers(): string[] {
  const guide = readFileSync(join(root, '..', 'docs', 'guide', 'architecture.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Layout'));
  const block = section.slice(
    section.indexOf('```') + 3,
    section.indexOf('```', section.indexOf('```') + 3),
  );
  return [...block.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1] as string);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Relative imports of a file, static, dynamic, type-only and re-exports alike, resolved. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specs = source.matchAll(
    /(?:^|[\s;])(?:import|export)\b[^'";]*?['"](\.\.?\/[^'"]+)['"]|import\(\s*['"](\.\.?\/[^'"]+)['"]/gm,
  );
  return [...specs].map((m) => resolve(dirname(file), (m[1] ?? m[2]) as string));
}

const isTestSupport = (file: string) => /\.test\.ts$/.test(file) || /\/testing\//.test(file);
const layerOf = (file: string) => relative(root, file).split('/')[0] as string;
const files = sourceFiles(root);

describe('architecture', () => {
  it('the architecture guide lists every layer of src/ once', () => {
    const layers = documentedLayers();
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(new Set(layers).size).toBe(layers.length);
    expect([...layers].sort()).toEqual([...folders].sort());
  });

  it('no module imports a layer listed after its own', () => {
    const rank = new Map(documentedLayers().map((layer, i) => [layer, i]));
    const upward = files
      .filter((file) => !isTestSupport(file) && rank.has(layerOf(file)))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => (rank.get(layerOf(target)) ?? -1) > (rank.get(layerOf(file)) ?? 0))
          .map((target) => `${relative(root, file)} → ${relative(root, target)}`),
      );
    expect(upward).toEqual([]);
  });

  it('no import cycle between files', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((t) => t !== file)]));
    // Tarjan's strongly connected components; a component of more than one file is a cycle.
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
        } else if (onStack.has(w))
          low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop() as string;
          onStack.delete(w);
          component.push(relative(root, w));
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('finds what it checks for', () => {
    // The checks would pass vacuously if the import reader found nothing.
    const trainer = importsOf(join(root, 'rl', 'trainer.ts')).map((t) => relative(root, t));
    expect(trainer).toContain('policy/policy.ts');
    expect(files.length).toBeGreaterThan(300);
  });
});
