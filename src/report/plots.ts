import { writeFile } from 'node:fs/promises';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** The files a chart was written to: always its SVG, its PNG when resvg could be loaded. */
export interface RenderedChart {
  /** The SVG file, always written. */
  svg: string;
  /** Missing when resvg's platform binary is not installed; `warning` then says how to get it. */
  png?: string;
  warning?: string;
}

type ResvgModule = typeof import('@resvg/resvg-js');

/**
 * resvg, loaded when the first PNG is drawn rather than when the package is imported: its
 * platform binary is an optional dependency, which `npm install --omit=optional` leaves out.
 */
let resvg: Promise<ResvgModule | Error> | undefined;
let warned = false;

function loadResvg(): Promise<ResvgModule | Error> {
  resvg ??= import('@resvg/resvg-js').catch((error: Error) => error);
  return resvg;
}

/**
 * Renders a Vega-Lite spec to `<base>.svg` and `<base>.png` (via resvg, no browser or system
 * graphics libraries; text uses the system's fonts when there are any). Without resvg's platform
 * binary (an install with `--omit=optional`) only the SVG is written, and the result's `warning`
 * (also printed once, as a process warning) says how to get the PNGs.
 */
export async function renderChart(spec: TopLevelSpec, base: string): Promise<RenderedChart> {
  const svg = await chartSvg(spec);
  await writeFile(`${base}.svg`, svg);
  const loaded = await loadResvg();
  if (loaded instanceof Error) {
    const warning = `PNG plots need the platform binary of @resvg/resvg-js, an optional dependency that is not installed (${loaded.message.split('\n')[0]}); wrote ${base}.svg only. Install without --omit=optional (or run npm install @resvg/resvg-js) to get the PNGs.`;
    if (!warned) process.emitWarning(warning, 'PlotWarning');
    warned = true;
    return { svg: `${base}.svg`, warning };
  }
  const png = new loaded.Resvg(svg, {
    background: 'white',
    font: { loadSystemFonts: true },
    fitTo: { mode: 'zoom', value: 2 },
  })
    .render()
    .asPng();
  await writeFile(`${base}.png`, png);
  return { svg: `${base}.svg`, png: `${base}.png` };
}

/** A Vega-Lite spec rendered to SVG markup, in memory (headless vega, no browser). */
export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export interface MethodPoint {
  method: string;
  realInteractions: number;
  success: number;
  low: number;
  high: number;
}

/** One seed's result of a method, for the spread. */
export interface SeedPoint {
  method: string;
  seed: number;
  realInteractions: number;
  success: number;
}

/**
 * Held-out success (with 95% intervals) against the real interactions each method used; with
 * `seeds`, each seed's result as a small hollow mark beside the mean, so the spread shows.
 */
export function successVsRealSpec(
  points: readonly MethodPoint[],
  title: string,
  seeds: readonly SeedPoint[] = [],
): TopLevelSpec {
  const spread =
    seeds.length > 0
      ? [
          {
            data: { values: seeds as SeedPoint[] },
            mark: { type: 'point' as const, filled: false, size: 30, opacity: 0.7 },
            encoding: { y: { field: 'success', type: 'quantitative' as const } },
          },
        ]
      : [];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 420,
    height: 280,
    data: { values: points as MethodPoint[] },
    encoding: {
      x: {
        field: 'realInteractions',
        type: 'quantitative',
        title: 'real interactions used in training',
      },
      color: { field: 'method', type: 'nominal', title: 'method', legend: { labelLimit: 400 } },
    },
    layer: [
      {
        mark: { type: 'rule' },
        encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
      },
      {
        mark: { type: 'point', filled: true, size: 80 },
        encoding: {
          y: {
            field: 'success',
            type: 'quantitative',
            title: 'held-out success rate',
            scale: { domain: [0, 1] },
          },
        },
      },
      ...spread,
    ],
  };
}

export interface CurvePoint {
  method: string;
  /** Env steps of training so far (real or synthetic, as the method trains). */
  steps: number;
  success: number;
  /** One line per seed when there are several. */
  seed?: number;
}

/** Held-out success during training, per method, against its training env steps. */
export function learningCurveSpec(points: readonly CurvePoint[], title: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 420,
    height: 280,
    data: { values: points as CurvePoint[] },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'steps', type: 'quantitative', title: 'training env steps (real or synthetic)' },
      y: {
        field: 'success',
        type: 'quantitative',
        title: 'held-out real success rate',
        scale: { domain: [0, 1] },
      },
      color: { field: 'method', type: 'nominal', title: 'method', legend: { labelLimit: 400 } },
      detail: { field: 'seed', type: 'nominal' },
    },
  };
}

/** One source's value of one metric, with its 95% interval. */
export interface MetricPoint {
  /** The compared source (a row of the table). */
  source: string;
  metric: string;
  value: number;
  low: number;
  high: number;
}

/**
 * Grouped bars: one panel per metric, one bar per source, each with its 95% interval (rules), on
 * a shared [0, 1] scale.
 */
export function metricBarsSpec(points: readonly MetricPoint[], title: string): TopLevelSpec {
  const sources = [...new Set(points.map((p) => p.source))];
  const metrics = [...new Set(points.map((p) => p.metric))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: points as MetricPoint[] },
    facet: { column: { field: 'metric', type: 'nominal', title: null, sort: metrics } },
    spec: {
      width: 110,
      height: 220,
      encoding: {
        x: { field: 'source', type: 'nominal', sort: sources, axis: null },
        color: {
          field: 'source',
          type: 'nominal',
          sort: sources,
          title: 'experience from',
          legend: { orient: 'bottom', labelLimit: 400 },
        },
      },
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] } },
          },
        },
        {
          mark: { type: 'rule', color: 'black' },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
      ],
    },
  };
}

/** One measure at one amount of data, with its 95% interval. */
export interface ScalingPoint {
  /** The amount of data (x). */
  amount: number;
  /** Which measure: one line each. */
  series: string;
  value: number;
  low: number;
  high: number;
}

/**
 * Measures against the amount of data on a log scale: one line per measure, each point with its
 * 95% interval; `seeds`, when given, as small hollow marks for the spread.
 */
export function scalingSpec(
  points: readonly ScalingPoint[],
  title: string,
  xTitle: string,
  seeds: ReadonlyArray<{ amount: number; series: string; value: number }> = [],
): TopLevelSpec {
  const amounts = points.map((p) => p.amount);
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: null,
    legend: { orient: 'bottom' as const, direction: 'vertical' as const, labelLimit: 600 },
  };
  const x = {
    field: 'amount',
    type: 'quantitative' as const,
    title: xTitle,
    scale: {
      type: 'log' as const,
      domain: [Math.min(...amounts) / 1.25, Math.max(...amounts) * 1.25],
      nice: false,
    },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 420,
    height: 280,
    layer: [
      {
        data: { values: points as ScalingPoint[] },
        mark: { type: 'line', point: { filled: true, size: 60 } },
        encoding: {
          x,
          y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [0, 1] } },
          color,
        },
      },
      {
        data: { values: points as ScalingPoint[] },
        mark: { type: 'rule' },
        encoding: { x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color },
      },
      ...(seeds.length > 0
        ? [
            {
              data: { values: seeds as Array<{ amount: number; series: string; value: number }> },
              mark: { type: 'point' as const, filled: false, size: 30, opacity: 0.7 },
              encoding: { x, y: { field: 'value', type: 'quantitative' as const }, color },
            },
          ]
        : []),
    ],
  };
}
