/**
 * The admissible actions of a composed state. The real state the text came from says which kinds
 * of action a state like it lists; a constant of the env (an action listed wherever its template
 * is, a form's fixed options) is listed as it is. The values the others are filled with come from
 * this episode: the learnt wrappers read them from this episode's texts, and a listed action of
 * the real state whose values the wrappers do not cover is kept only when its values, swapped
 * for this episode's, were shown in this episode (or are constants of the env, shown nowhere).
 */
import type { ActionGrammar } from './action-grammar.ts';
import type { AdmissibleRules } from './admissible.ts';
import { substitute } from './text.ts';
import type { EpisodeStep } from './value-mapping.ts';

/**
 * The actions of `target.view.texts[target.now]`, from the list `sourceList` of the real text
 * `source.view.texts[source.now]`, under `mapping` (source value → ours).
 */
export function nextActions(
  sourceList: readonly string[],
  source: EpisodeStep,
  target: EpisodeStep,
  mapping: ReadonlyMap<string, string>,
  grammar: ActionGrammar,
  rules: AdmissibleRules,
): string[] {
  const out = new Set<string>();
  const kinds = new Set<string>();
  for (const action of sourceList) {
    if (/<[^<>]+>/.test(action)) {
      out.add(action);
      continue;
    }
    const { template, values } = grammar.parse(action);
    kinds.add(template);
    if (values.length === 0 || rules.isConstant(action)) {
      out.add(action);
      continue;
    }
    if (values.every((v) => source.view.origin(v, source.now) === 'none')) {
      out.add(action);
      continue;
    }
    if (rules.derives(template)) continue;
    const mapped = substitute(action, mapping);
    const shown = grammar
      .parse(mapped)
      .values.every((v) => target.view.origin(v, target.now) !== 'none');
    if (shown) out.add(mapped);
  }
  for (const action of rules.derive(target.view, target.now, kinds)) out.add(action);
  return [...out];
}
