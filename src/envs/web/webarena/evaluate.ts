import type { LlmClient } from '../../../llm/client.ts';
import type { ReferenceAnswers, WebArenaConfig } from './config.ts';
import type { CheckOutcome, Evaluation, TaskEvaluator } from './evaluator.ts';
import { judgeFuzzy, judgeUnachievable } from './judge.ts';
import { runProgramHtmlCheck } from './program-html.ts';
import {
  alternatives,
  cleanAnswer,
  exactMatch,
  mustExclude,
  mustIncludeAny,
} from './string-match.ts';
import { urlMatch } from './url-match.ts';

export interface EvaluatorOptions {
  /**
   * The LLM judge of fuzzy_match references. Without one those checks are undecided ("needs a
   * judge"): never passed or failed silently.
   */
  judge?: LlmClient;
  /** program_html: longest wait for a check's page to go network-idle after load. Default 3000 ms. */
  settleMs?: number;
}

const NEEDS_JUDGE = 'needs an LLM judge (configure one, e.g. makeEvaluator({ judge }))';

/**
 * WebArena's string_match (`StringEvaluator` in `evaluation_harness/evaluators.py`): the answer is
 * cleaned once (`clean_answer`), then each kind of reference answer is one check. must_include
 * tokenizes a one-character reference when it is the only entry, as WebArena does; fuzzy_match
 * asks the judge once per reference fact and needs all to be "correct"; a fuzzy_match of `N/A`
 * (an unachievable task) passes on the answer `N/A`, else when the judge finds the agent's reason
 * the same as `string_note`.
 */
async function stringMatch(
  config: WebArenaConfig,
  answer: string | undefined,
  judge: LlmClient | undefined,
): Promise<CheckOutcome[]> {
  const references: ReferenceAnswers = config.eval.reference_answers ?? {};
  const pred = cleanAnswer(answer ?? '');
  const said = answer === undefined ? 'no answer (the episode ended without stop)' : `"${pred}"`;
  const checks: CheckOutcome[] = [];
  if (references.exact_match !== undefined) {
    const gold = String(references.exact_match);
    checks.push({
      check: 'string_match/exact_match',
      passed: exactMatch(gold, pred),
      detail: `answer ${said}, expected exactly "${cleanAnswer(gold)}"`,
    });
  }
  if (references.must_include !== undefined) {
    const entries = references.must_include.map(String);
    const tokenize = entries.length === 1;
    const missing = entries.filter((entry) => !mustIncludeAny(entry, pred, tokenize));
    checks.push({
      check: 'string_match/must_include',
      passed: missing.length === 0,
      detail:
        missing.length === 0
          ? `answer ${said} includes ${entries.map((e) => `"${e}"`).join(', ')}`
          : `answer ${said} lacks ${missing
              .map((e) =>
                alternatives(e)
                  .map((a) => `"${a}"`)
                  .join(' or '),
              )
              .join(', ')}`,
    });
  }
  if (references.must_exclude !== undefined) {
    const present = references.must_exclude.filter((entry) => !mustExclude(entry, pred));
    checks.push({
      check: 'string_match/must_exclude',
      passed: present.length === 0,
      detail:
        present.length === 0
          ? `answer ${said} is free of ${references.must_exclude.map((e) => `"${e}"`).join(', ')}`
          : `answer ${said} contains ${present.map((e) => `"${e}"`).join(', ')}`,
    });
  }
  if (references.fuzzy_match !== undefined) {
    checks.push(await fuzzyMatch(config, references.fuzzy_match, pred, said, judge));
  }
  if (checks.length === 0) {
    checks.push({
      check: 'string_match',
      passed: undefined,
      detail: 'the config has string_match but no eval.reference_answers to compare with',
    });
  }
  return checks;
}

async function fuzzyMatch(
  config: WebArenaConfig,
  reference: string | string[],
  pred: string,
  said: string,
  judge: LlmClient | undefined,
): Promise<CheckOutcome> {
  const check = 'string_match/fuzzy_match' as const;
  if (reference === 'N/A') {
    if (exactMatch('N/A', pred)) {
      return { check, passed: true, detail: `answer ${said}: the task is unachievable (N/A)` };
    }
    if (!judge) {
      return {
        check,
        passed: undefined,
        detail: `answer ${said} to an unachievable task ${NEEDS_JUDGE} to compare its reason with "${config.eval.string_note ?? ''}"`,
      };
    }
    const verdict = await judgeUnachievable(judge, {
      intent: config.intent,
      reason: config.eval.string_note ?? '',
      answer: pred,
    });
    return { check, ...verdict };
  }
  const facts = typeof reference === 'string' ? [reference] : reference;
  if (!judge) {
    return {
      check,
      passed: undefined,
      detail: `answer ${said} ${NEEDS_JUDGE} against ${facts.map((f) => `"${f}"`).join(', ')}`,
    };
  }
  const verdicts = [];
  for (const fact of facts) {
    verdicts.push(
      await judgeFuzzy(judge, { intent: config.intent, reference: fact, answer: pred }),
    );
  }
  const passed = verdicts.some((v) => v.passed === false)
    ? false
    : verdicts.every((v) => v.passed === true)
      ? true
      : undefined;
  return { check, passed, detail: verdicts.map((v) => v.detail).join('; ') };
}

/**
 * WebArena's evaluators as one {@link TaskEvaluator}: each of the config's `eval_types` in order
 * (string_match on the `stop` answer, url_match on the final page's URL, program_html on pages
 * opened in the episode's context), every outcome in `checks`. The reward is 1 iff there is at
 * least one check and every check passed; a check that could not be decided (no judge, an
 * unsupported helper, a site that did not answer) makes the evaluation `undecided` with reward 0.
 */
export function makeEvaluator(options: EvaluatorOptions = {}): TaskEvaluator {
  const settleMs = options.settleMs ?? 3000;
  return async ({ config, page, context, answer }): Promise<Evaluation> => {
    const checks: CheckOutcome[] = [];
    for (const type of config.eval.eval_types) {
      if (type === 'string_match') {
        checks.push(...(await stringMatch(config, answer, options.judge)));
      } else if (type === 'url_match') {
        const reference = config.eval.reference_url ?? '';
        checks.push({
          check: 'url_match',
          ...(reference.trim()
            ? urlMatch(reference, page.url(), config.eval.url_note ?? 'GOLD in PRED')
            : { passed: undefined, detail: 'the config has url_match but no eval.reference_url' }),
        });
      } else {
        for (const check of config.eval.program_html ?? []) {
          checks.push(
            await runProgramHtmlCheck(check, {
              page,
              context,
              intent: config.intent,
              settleMs,
              ...(options.judge && { judge: options.judge }),
            }),
          );
        }
      }
    }
    const undecided = checks.some((c) => c.passed === undefined);
    const reward = checks.length > 0 && checks.every((c) => c.passed === true) ? 1 : 0;
    return { reward, checks, undecided };
  };
}

/** WebArena's evaluators without an LLM judge: fuzzy_match checks come back undecided. */
export const evaluateTask: TaskEvaluator = makeEvaluator();
