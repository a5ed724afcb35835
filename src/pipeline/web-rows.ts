/** Comparing the web table's rows: their method's short name, task kinds solved, pairs of rows. */
import { mcnemarExact } from '../report/stats.ts';
import type { TaskOutcome, WebDemoRow } from './web-demo.ts';

/** A row's method without its parenthesis (`DreamGym GRPO`, `real RL, if it were possible`). */
export const methodKey = (method: string): string => method.split(' (')[0] as string;

/** `12/70 (17%)`, or `–` when no task is of the kind. */
export function share(outcomes: readonly TaskOutcome[]): string {
  if (outcomes.length === 0) return '–';
  const solved = outcomes.filter((o) => o.reward >= 1).length;
  return `${solved}/${outcomes.length} (${((100 * solved) / outcomes.length).toFixed(0)}%)`;
}

/**
 * A row against the baseline on the same held-out tasks: tasks only it solved, tasks only the
 * baseline solved, and McNemar's exact p for that split. Undefined when the rows' tasks differ.
 */
export function pairedWithBaseline(
  row: WebDemoRow,
  baseline: WebDemoRow,
): { better: number; worse: number; p: number } | undefined {
  if (
    row.outcomes.length !== baseline.outcomes.length ||
    row.outcomes.some((o, i) => o.taskId !== baseline.outcomes[i]?.taskId)
  )
    return undefined;
  let better = 0;
  let worse = 0;
  row.outcomes.forEach((o, i) => {
    const solved = o.reward >= 1;
    const baselineSolved = (baseline.outcomes[i] as TaskOutcome).reward >= 1;
    if (solved && !baselineSolved) better++;
    if (!solved && baselineSolved) worse++;
  });
  return { better, worse, p: mcnemarExact(better, worse) };
}
