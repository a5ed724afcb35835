/**
 * The paper's own numbers, to print beside ours. Only figures we are sure of are here, each with
 * its table, benchmark and backbone; a method or benchmark without one has no entry (never a
 * guess).
 */

/** The paper these figures are from. */
export const PAPER_CITATION =
  'Chen et al., "Scaling Agent Learning via Experience Synthesis" (DreamGym), arXiv:2511.03773, 2025';

/** One success rate the paper reports. */
export interface PaperFigure {
  /** The paper's benchmark, e.g. `WebArena-Lite`. */
  benchmark: string;
  /** The paper's method as its table names it. */
  method: string;
  /** The LLM policy the method trained. */
  backbone: string;
  /** Success rate, percent. */
  success: number;
  /** Where in the paper. */
  source: string;
}

/** The benchmarks of Table 1, by our env (a web site of ours stands for WebArena-Lite). */
const BENCHMARK_OF: Record<string, string> = {
  webshop: 'WebShop',
  household: 'ALFWorld',
  web: 'WebArena-Lite',
};

/**
 * Table 1's figures we can vouch for: WebArena-Lite with Llama-3.2-3B-Instruct, the regime where
 * real-env RL is infeasible. Its WebShop and ALFWorld figures, and its other backbones, are not
 * here: we could not check them against the paper.
 */
export const PAPER_TABLE_1: readonly PaperFigure[] = [
  ['GRPO', 7.3],
  ['PPO', 6.7],
  ['DreamGym GRPO', 13.3],
  ['DreamGym PPO', 14.5],
].map(([method, success]) => ({
  benchmark: 'WebArena-Lite',
  method: method as string,
  backbone: 'Llama-3.2-3B-Instruct',
  success: success as number,
  source: 'Table 1',
}));

/**
 * The paper's figure for one of our demo rows: the env's benchmark (`web:forum` and `web:store`
 * stand for WebArena-Lite) and the row's method — real-env GRPO or PPO, DreamGym GRPO or PPO
 * (synthetic only) — or undefined where the paper has no figure we hold (BC, DPO, S2R, the
 * small-budget row, WebShop and ALFWorld).
 */
export function paperFigureFor(env: string, rowMethod: string): PaperFigure | undefined {
  const benchmark = BENCHMARK_OF[env.split(':')[0] as string];
  const method = paperMethodOf(rowMethod);
  if (!benchmark || !method) return undefined;
  return PAPER_TABLE_1.find((f) => f.benchmark === benchmark && f.method === method);
}

/** The paper's name for a demo row's method, for the rows Table 1 has. */
function paperMethodOf(rowMethod: string): string | undefined {
  if (/small budget|S2R/.test(rowMethod)) return undefined;
  const algo = /\b(GRPO|PPO)\b/.exec(rowMethod)?.[1];
  if (!algo) return undefined;
  if (rowMethod.startsWith('DreamGym')) return `DreamGym ${algo}`;
  return /\breal\b/.test(rowMethod) ? algo : undefined;
}

/** `13.3% (Llama-3.2-3B-Instruct, WebArena-Lite)`, or `–` with no figure. */
export function formatPaperFigure(figure: PaperFigure | undefined): string {
  return figure ? `${figure.success.toFixed(1)}% (${figure.backbone}, ${figure.benchmark})` : '–';
}
