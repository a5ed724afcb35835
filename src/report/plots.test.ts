import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricBarsSpec, renderChart } from './plots.ts';

const spec = metricBarsSpec(
  [{ source: 'real', metric: 'success', value: 0.5, low: 0.4, high: 0.6 }],
  'a chart',
);

describe('renderChart', () => {
  it('writes the SVG and, with resvg installed, the PNG', async () => {
    const base = join(mkdtempSync(join(tmpdir(), 'dg-plots-')), 'chart');
    const chart = await renderChart(spec, base);
    expect(chart).toEqual({ svg: `${base}.svg`, png: `${base}.png` });
    expect(readFileSync(`${base}.svg`, 'utf8')).toMatch(/^<svg/);
    expect(readFileSync(`${base}.png`).subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});
