import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StepResult } from '../envs/env.ts';

/**
 * A served env's metrics in Prometheus' text format (prom-client, on a registry of its own):
 * steps, episodes by how they ended and step latency, counted as they happen; sessions and
 * whatever else a server adds (the buffer, the LLM, the curriculum) read at each scrape.
 */
export class ServerMetrics {
  /** The registry `GET /metrics` renders; add metrics of your own to it. */
  readonly registry = new Registry();
  private readonly steps = new Counter({
    name: 'dreamgym_steps_total',
    help: 'Steps served.',
    registers: [this.registry],
  });
  private readonly episodes = new Counter({
    name: 'dreamgym_episodes_total',
    help: "Episodes ended, by how: terminated, the truncation reason (time-limit, model-error, …), or abandoned (the client reset, closed or left the session before the episode's end).",
    labelNames: ['end'],
    registers: [this.registry],
  });
  private readonly stepSeconds = new Histogram({
    name: 'dreamgym_step_seconds',
    help: "Time the env took to answer a step (the server's own overhead excluded).",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** The content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Counts a served step: its latency, and the episode's end if it ended one. */
  observeStep(seconds: number, result: StepResult): void {
    this.steps.inc();
    this.stepSeconds.observe(seconds);
    if (result.terminated) this.episodes.inc({ end: 'terminated' });
    else if (result.truncated)
      this.episodes.inc({ end: String(result.info.truncatedBy ?? 'truncated') });
  }

  /** Counts an episode the client left unfinished (reset mid-episode, closed, reaped when idle). */
  observeAbandoned(): void {
    this.episodes.inc({ end: 'abandoned' });
  }

  /**
   * A gauge read at each scrape: `read` returns (or resolves to) one value, or values by the
   * label `label`.
   * A read that throws leaves the gauge out of that scrape rather than failing it.
   */
  gauge(
    name: string,
    help: string,
    read: () => number | Record<string, number> | Promise<number | Record<string, number>>,
    label?: string,
  ): void {
    new Gauge({
      name,
      help,
      labelNames: label ? [label] : [],
      registers: [this.registry],
      async collect() {
        let value: number | Record<string, number>;
        try {
          value = await read();
        } catch {
          this.reset();
          return;
        }
        this.reset();
        if (typeof value === 'number') this.set(value);
        else for (const [key, v] of Object.entries(value)) this.set({ [label ?? 'key']: key }, v);
      },
    });
  }

  /** The metrics as Prometheus text. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
