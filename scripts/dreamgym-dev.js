#!/usr/bin/env node
// The `dreamgym` command from the TypeScript sources, through tsx's loader (no build step): what
// the tests run, so they test the sources and never a stale dist/.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
