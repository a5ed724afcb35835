/**
 * Node module hooks for a user's env modules, registered after tsx's by `loadModuleEntry`: a
 * `.ts`/`.tsx` file of the user's own (outside node_modules) that is imported loads as an ES module,
 * whatever its package.json's `"type"` says. `npm init` writes `"type": "commonjs"`, where tsx
 * would compile the module to CommonJS, and CommonJS cannot load dreamgym: an ES module whose graph
 * awaits at top level (vega-canvas). `.cts` stays CommonJS and `.mts` is an ES module by name.
 */
import type { ResolveHook } from 'node:module';

/** True for a user's TypeScript file whose kind comes from its package.json. */
function isUserTypeScript(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  const { pathname } = new URL(url);
  return /\.tsx?$/.test(pathname) && !pathname.includes('/node_modules/');
}

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const imported = context.conditions.includes('import');
  return imported && resolved.format === 'commonjs' && isUserTypeScript(resolved.url)
    ? { ...resolved, format: 'module' }
    : resolved;
};
