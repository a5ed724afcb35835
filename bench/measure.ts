import { arch, cpus, platform, totalmem } from 'node:os';

export interface Measurement {
  /** Milliseconds per operation. */
  median: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  /** Operations timed. */
  n: number;
}

/**
 * Times `fn` one call at a time (after a warm-up) and returns the distribution in ms. Hand-written
 * because we want every sample and the p90, which time-boxed batch harnesses do not report.
 */
export async function measure(
  fn: (i: number) => unknown,
  { warmup = 20, iterations = 500 }: { warmup?: number; iterations?: number } = {},
): Promise<Measurement> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - start) / 1e6;
  }
  samples.sort();
  const at = (q: number) => samples[Math.min(iterations - 1, Math.floor(q * iterations))] as number;
  return {
    median: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    mean: samples.reduce((s, x) => s + x, 0) / iterations,
    min: samples[0] as number,
    n: iterations,
  };
}

/** Wall time of one call, in ms. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function machineInfo() {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${platform()}-${arch()}`,
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}
