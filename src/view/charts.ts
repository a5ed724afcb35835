import type { TopLevelSpec } from 'vega-lite';

/** One point of a line series. */
export interface SeriesPoint {
  series: string;
  x: number;
  y: number;
}

/** Axis titles, chart title and y range of a {@link seriesSpec} chart. */
export interface SeriesChartOptions {
  title: string;
  x: string;
  y: string;
  /** Fixed y range, e.g. [0, 1] for rates. Default: fitted to the data. */
  yDomain?: [number, number];
  /** The x values are counts (iterations): ticks at whole numbers only. */
  xIntegers?: boolean;
}

/** Line chart of several named series against one x axis (iterations, env steps). */
export function seriesSpec(
  points: readonly SeriesPoint[],
  options: SeriesChartOptions,
): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title,
    width: 320,
    height: 220,
    data: { values: points as SeriesPoint[] },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        title: options.x,
        ...(options.xIntegers && { axis: { tickMinStep: 1, format: 'd' } }),
      },
      y: {
        field: 'y',
        type: 'quantitative',
        title: options.y,
        ...(options.yDomain && { scale: { domain: options.yDomain } }),
      },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        legend: { orient: 'bottom', direction: 'vertical', labelLimit: 300 },
      },
    },
  };
}
