import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/your-env/*.test.ts'],
    testTimeout: 30_000,
    // Hooks launch Chromium, PostgreSQL, servers and CLI children; at load 7 on 2 cores a child's
    // start-up alone passes 20 s. Tests that spawn the CLI take their timeouts from
    // src/cli/testing/timeouts.ts; the others run it in process and need no more than the default.
    hookTimeout: 120_000,
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
