/**
 * An install with `--omit=optional` has no platform binary for @resvg/resvg-js: the package
 * still imports, and plots come out as SVG with a warning naming how to get the PNGs.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('@resvg/resvg-js', () => {
  throw new Error("Cannot find module '@resvg/resvg-js-linux-x64-gnu'");
});

describe('plots without resvg', () => {
  it('the package imports', async () => {
    const dreamgym = await import('../index.ts');
    expect(Object.keys(dreamgym).length).toBeGreaterThan(10);
  });

  it('writes the SVG, no PNG, and says once how to get them', async () => {
    const { metricBarsSpec, renderChart } = await import('./plots.ts');
    const warnings: string[] = [];
    const listen = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', listen);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'dg-plots-'));
      const spec = metricBarsSpec(
        [{ source: 'real', metric: 'success', value: 0.5, low: 0.4, high: 0.6 }],
        'a chart',
      );
      const first = await renderChart(spec, join(dir, 'one'));
      await renderChart(spec, join(dir, 'two'));
      expect(first.svg).toBe(join(dir, 'one.svg'));
      expect(first.png).toBeUndefined();
      expect(first.warning).toMatch(
        /PNG plots need the platform binary of @resvg\/resvg-js, an optional dependency that is not installed .*wrote .*one\.svg only\. Install without --omit=optional \(or run npm install @resvg\/resvg-js\)/,
      );
      expect(readFileSync(join(dir, 'two.svg'), 'utf8')).toMatch(/^<svg/);
      expect(existsSync(join(dir, 'one.png'))).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([`PlotWarning: ${first.warning}`]);
    } finally {
      process.off('warning', listen);
    }
  });
});
