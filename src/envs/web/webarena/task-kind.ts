import type { Task } from '../../../core/types.ts';
import type { EvalType } from './config.ts';

/**
 * WebArena's three kinds of task, told apart by how a task is judged: `information` (a
 * `string_match` on the answer), `navigation` (a `url_match` on the final page), `change` (a
 * `program_html` check of what the site now holds). A config with several evaluators is a change
 * if it checks the site, else navigation if it checks the URL.
 */
export const WEB_TASK_KINDS = ['information', 'navigation', 'change'] as const;
export type WebTaskKind = (typeof WEB_TASK_KINDS)[number];

/**
 * The kind of a task whose spec is a WebArena config (the built-in web apps' and `webarena@…`
 * tasks); undefined for any other task (a generated one, another env's). Reads only the
 * config's `eval.eval_types`, never its reference answers.
 */
export function webTaskKind(task: Task): WebTaskKind | undefined {
  const types = (task.spec as { eval?: { eval_types?: unknown } } | undefined)?.eval?.eval_types;
  if (!Array.isArray(types)) return undefined;
  const has = (type: EvalType) => types.includes(type);
  if (has('program_html')) return 'change';
  if (has('url_match')) return 'navigation';
  if (has('string_match')) return 'information';
  return undefined;
}
