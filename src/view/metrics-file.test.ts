import { appendFileSync, mkdtempSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricsFile } from './metrics-file.ts';

const line = (iteration: number, successRate = 0.5) =>
  `${JSON.stringify({
    iteration,
    seconds: { collect: 1, advantages: 0.5, update: 1, evaluate: 0 },
    rollout: { episodes: 4, steps: 9, successRate, meanReward: successRate, informativeGroups: 1 },
    update: { approxKl: 0.001, entropy: 1 },
    envSteps: 9 * (iteration + 1),
    eval: { episodes: 5, successRate: 0.2, meanReward: 0.3, meanSteps: 4 },
  })}\n`;

function metricsPath(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dg-metrics-file-')), 'metrics.jsonl');
  writeFileSync(path, content);
  return path;
}

describe('MetricsFile', () => {
  it('reads the file once, then only the bytes appended to it', () => {
    const path = metricsPath(line(0) + line(1));
    const file = new MetricsFile(path, 'synthetic/metrics.jsonl');
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([0, 1]);
    const size = statSync(path).size;
    expect(file.bytesRead).toBe(size);
    // Nothing new: only the byte that says the last read ended a line is read again.
    expect(file.read()?.rows).toHaveLength(2);
    expect(file.bytesRead).toBeLessThanOrEqual(size + 1);
    const before = file.bytesRead;
    appendFileSync(path, line(2));
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([0, 1, 2]);
    expect(file.bytesRead - before).toBe(line(2).length + 1);
  });

  it('keeps what the dashboard shows of a line: seconds summed, eval, informative groups', () => {
    const file = new MetricsFile(metricsPath(line(0, 0.75)), 'm');
    expect(file.read()?.rows[0]).toEqual({
      iteration: 0,
      envSteps: 9,
      rollout: { successRate: 0.75, meanReward: 0.75, informativeGroups: 1 },
      update: { approxKl: 0.001 },
      seconds: 2.5,
      eval: { successRate: 0.2, meanReward: 0.3 },
    });
  });

  it('shows an unended last line once whole, and reads it again until its line end comes', () => {
    const path = metricsPath(line(0));
    const file = new MetricsFile(path, 'm');
    const next = line(1);
    appendFileSync(path, next.slice(0, 30));
    expect(file.read()?.rows).toHaveLength(1);
    appendFileSync(path, next.slice(30, -1));
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([0, 1]);
    appendFileSync(path, `\n${line(2)}`);
    const read = file.read();
    expect(read?.rows.map((r) => r.iteration)).toEqual([0, 1, 2]);
    expect(read?.problems).toEqual([]);
  });

  it('reads the file again from the start when it shrank or was replaced', () => {
    const path = metricsPath(line(0) + line(1) + line(2));
    const file = new MetricsFile(path, 'm');
    expect(file.read()?.rows).toHaveLength(3);
    writeFileSync(path, line(5));
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([5]);
    // Another file moved in its place, longer than what was read.
    const other = `${path}.new`;
    writeFileSync(other, line(7) + line(8) + line(9));
    renameSync(other, path);
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([7, 8, 9]);
    // Rewritten in place, longer, where the last read ended mid-line in the new content.
    writeFileSync(path, line(10, 0.123456789) + line(11) + line(12) + line(13));
    expect(file.read()?.rows.map((r) => r.iteration)).toEqual([10, 11, 12, 13]);
  });

  it('lists lines that are not an iteration’s metrics, ten by line number, then how many more', () => {
    const bad = Array.from({ length: 13 }, (_, i) => `{"iteration":${i}}\n`).join('');
    const file = new MetricsFile(metricsPath(`${line(0)}not json\n${bad}`), 's2r/metrics.jsonl');
    const read = file.read();
    expect(read?.rows).toHaveLength(1);
    expect(read?.problems).toHaveLength(11);
    expect(read?.problems[0]).toMatch(/^s2r\/metrics\.jsonl line 2: not JSON/);
    expect(read?.problems[1]).toBe(
      's2r/metrics.jsonl line 3: not an iteration’s metrics (no number at envSteps, rollout.successRate, rollout.meanReward, update.approxKl); left out',
    );
    expect(read?.problems.at(-1)).toBe('s2r/metrics.jsonl: 4 more such lines left out');
  });

  it('is undefined while the file does not exist', () => {
    const file = new MetricsFile(join(tmpdir(), 'dg-no-such-metrics.jsonl'), 'm');
    expect(file.read()).toBeUndefined();
  });
});
