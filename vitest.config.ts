import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/your-env/*.test.ts'],
    testTimeout: 30_000,
    // Hooks launch Chromium, PostgreSQL and servers; on a loaded 2-core machine that can pass 10 s.
    hookTimeout: 60_000,
  },
  // The examples import the package by name, as users do; in the repo's tests that is the sources
  // (`npm run test:package` runs them against the packed package).
  resolve: {
    alias: [
      { find: /^dreamgym$/, replacement: src('index.ts') },
      { find: /^dreamgym\/testing$/, replacement: src('testing.ts') },
    ],
  },
});
