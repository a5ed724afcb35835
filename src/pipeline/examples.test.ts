import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from './config.ts';

describe('example run configs', () => {
  const dir = join(import.meta.dirname, '../../examples');
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$|\.json$/.test(f))) {
    it(`${file} is a valid run config`, async () => {
      const config = await loadRunConfig(join(dir, file));
      expect(config.env).toBe('webshop');
    });
  }
});
