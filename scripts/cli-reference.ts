/**
 * Writes the docs' CLI reference (docs/reference/cli.md, built, not committed) from the commander
 * program the `dreamgym` command runs: `npm run docs` runs it before building the site.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildProgram } from '../src/cli/program.ts';
import { cliReference } from '../src/cli/reference.ts';

const out = resolve(import.meta.dirname, '../docs/reference/cli.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, cliReference(buildProgram()));
console.log(`wrote ${out}`);
