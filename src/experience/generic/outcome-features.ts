/**
 * What an episode saw and did, read at its end, as the numbers the outcome model scores: did it
 * act on things it was shown, did it read the record the task is about, did it end and go the
 * way real successes of similar tasks did.
 */
import type { ActionGrammar } from './action-grammar.ts';
import type { EpisodeView } from './episode.ts';
import { containsValue, jaccard, maskDigits, tokenize, valueShape, wordsOf } from './text.ts';
import type { WordFrequency } from './word-frequency.ts';

/** How a real success of a similar task went: its last action's template, all its templates. */
export interface SuccessProfile {
  final: string;
  templates: ReadonlySet<string>;
  /** Template → how many times the episode took it. */
  counts: ReadonlyMap<string, number>;
  steps: number;
  /** The shapes of the last action's values, joined. */
  finalShape: string;
  /** The roles of the last action's values in what the episode showed (see {@link endingOf}). */
  finalRoles: string;
}

/**
 * How an episode ends with `action` from state `now`, for comparing endings: the action's
 * template and, per value, its role where the episode showed it, whether the instruction names
 * it (`+task`: the thing the task is about, not another one lying there) and its shape
 * (`answer[<1>]` with a status read from a record: `status:w`).
 */
export function endingOf(
  view: EpisodeView,
  now: number,
  action: string,
  grammar: ActionGrammar,
): { template: string; roles: string } {
  const { template, values } = grammar.parse(action);
  return {
    template,
    roles: values
      .map((v) => {
        const named = containsValue(view.instruction, v) ? '+task' : '';
        return `${roleOf(view, v, now)}${named}:${valueShape(v)}`;
      })
      .join('\u0001'),
  };
}

/**
 * The role a value plays where an episode last showed it before step `now`: the word just
 * before it (a field's name, a label), or `task` when only the instruction has it, or `none`.
 */
function roleOf(view: EpisodeView, value: string, now: number): string {
  const at = view.lastShowing(value, now);
  if (at === undefined) return containsValue(view.instruction, value) ? 'task' : 'none';
  const text = view.texts[at] as string;
  const tokens = tokenize(text);
  const first = tokenize(value)[0]?.text;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]?.text !== first || !containsValue(text.slice(tokens[i]?.start), value)) continue;
    for (let j = i - 1; j >= 0; j--) if (tokens[j]?.word) return maskDigits(tokens[j]?.text ?? '');
    return 'start';
  }
  return 'none';
}

/**
 * The features of ending an episode with `action` from state `now` into `nextText`, given real
 * successes of similar tasks (`profiles`, none of them this episode).
 */
export function outcomeFeatures(
  view: EpisodeView,
  now: number,
  action: string,
  nextText: string,
  grammar: ActionGrammar,
  taskWords: WordFrequency,
  profiles: readonly SuccessProfile[],
): number[] {
  const { template, values } = grammar.parse(action);
  const content = taskWords.of(view.instruction);
  const shareOf = (words: readonly string[]) => (text: string) => {
    if (words.length === 0) return 0;
    const have = new Set(wordsOf(text));
    return words.filter((w) => have.has(w)).length / words.length;
  };
  const share = shareOf(content);
  const shareAll = shareOf([...new Set(wordsOf(view.instruction))]);
  const texts = view.texts.slice(0, now + 1);
  const origins = values.map((v) => view.origin(v, now));
  const shown = origins.filter((o) => o === 'state' || o === 'episode').length;
  const inTask = values.filter((v) => containsValue(view.instruction, v)).length;
  const records = texts.filter((t) => values.some((v) => containsValue(t, v)));
  const seenWords = new Set(texts.flatMap((t) => wordsOf(t)));
  const taken = view.actions.slice(0, now);
  const templates = new Set([...taken.map((a) => grammar.parse(a).template), template]);
  const decisive = decisiveActions(view, now, template, grammar, profiles);
  const lengths = profiles.map((p) => p.steps).sort((a, b) => a - b);
  const typical = lengths[Math.floor(lengths.length / 2)] ?? now + 1;
  const ending = endingOf(view, now, action, grammar);
  return [
    values.length === 0 ? 1 : shown / values.length,
    values.length === 0 ? 0 : inTask / values.length,
    Math.max(0, ...records.map(share)),
    content.length === 0 ? 0 : content.filter((w) => seenWords.has(w)).length / content.length,
    (profiles.filter((p) => p.final === template).length + 1) / (profiles.length + 2),
    Math.max(0, ...profiles.map((p) => jaccard(templates, p.templates))),
    taken.length === 0 ? 0 : view.invalid.slice(0, now).filter(Boolean).length / taken.length,
    Math.min(3, (now + 1) / Math.max(1, typical)),
    view.tookBefore(action, now) ? 1 : 0,
    share(nextText),
    decisive.records(share),
    Math.max(0, ...records.map(shareAll)),
    decisive.records(shareAll),
    decisive.repeated,
    agreeing(profiles, (p) => p.finalShape === values.map(valueShape).join('\u0001')),
    agreeing(profiles, (p) => p.finalRoles === ending.roles),
  ];
}

/** The share of profiles that agree, smoothed toward ½ (no profiles: ½). */
function agreeing(profiles: readonly SuccessProfile[], agrees: (p: SuccessProfile) => boolean) {
  return (profiles.filter(agrees).length + 1) / (profiles.length + 2);
}

/**
 * The episode's decisive actions: for each template that similar successes took exactly once
 * before their last action (the step that commits, not the ones that look around), this
 * episode's last such action. `records(share)` is how much what they acted on was what the task
 * is about (the mean over templates of `share` of the record each acted on, the instruction for
 * a value taken from it; 0 for a template never taken); `repeated` is 1 when the episode took one
 * of those templates more than once.
 */
function decisiveActions(
  view: EpisodeView,
  now: number,
  final: string,
  grammar: ActionGrammar,
  profiles: readonly SuccessProfile[],
): { records: (share: (text: string) => number) => number; repeated: number } {
  const once = new Map<string, number>();
  for (const p of profiles)
    for (const [template, count] of p.counts)
      if (count === 1 && template !== p.final) once.set(template, (once.get(template) ?? 0) + 1);
  const decisive = [...once]
    .filter(([template, n]) => template !== final && n * 2 > profiles.length)
    .map(([template]) => template);
  const taken = decisive.map((template) => {
    const steps: string[][] = [];
    for (let i = now - 1; i >= 0; i--) {
      if (view.invalid[i]) continue;
      const parsed = grammar.parse(view.actions[i] as string);
      if (parsed.template !== template) continue;
      const records = view.texts
        .slice(0, i + 1)
        .filter((t) => parsed.values.some((v) => containsValue(t, v)));
      if (parsed.values.some((v) => containsValue(view.instruction, v)))
        records.push(view.instruction);
      steps.push(records);
    }
    return steps;
  });
  return {
    records: (share) =>
      taken.length === 0
        ? 0
        : taken.reduce((s, steps) => s + Math.max(0, ...(steps[0] ?? []).map(share)), 0) /
          taken.length,
    repeated: taken.some((steps) => steps.length > 1) ? 1 : 0,
  };
}
