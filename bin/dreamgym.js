#!/usr/bin/env node
// The `dreamgym` command: the compiled CLI in dist/ (`npm run build`; installs build it through
// `prepare`). For development without a build, `npm run dreamgym -- …` runs the sources with tsx.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error(
    'dreamgym: the compiled CLI (dist/cli/main.js) is missing. Run `npm run build` in the ' +
      'package folder, or `npm run dreamgym -- …` to run the TypeScript sources.',
  );
  process.exit(1);
}
await import(main.href);
