import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Every source file the given files import, directly or not, through relative imports. */
export function moduleGraph(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, spec] of source.matchAll(/^import[^'"]*['"](\.[^'"]+)['"]/gm))
      visit(resolve(dirname(file), spec as string));
  };
  for (const entry of entries) visit(resolve(entry));
  return seen;
}

/** Files of the graph inside a real env's folder (catalog, scene, browser, site or server code). */
export function realEnvModules(graph: Iterable<string>): string[] {
  return [...graph].filter((f) =>
    /\/src\/envs\/(webshop|household|agentgym|web|openenv|mcp|support-desk|keys-and-doors|booking)\//.test(
      f,
    ),
  );
}
