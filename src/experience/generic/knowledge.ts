import { hashString } from '../../core/rng.ts';
import type { Task, Trajectory } from '../../core/types.ts';
import { ActionGrammar, isListed } from './action-grammar.ts';
import { AdmissibleRules } from './admissible.ts';
import { contextFeatures, informationGain, totalWeight } from './context-features.ts';
import { EpisodeView } from './episode.ts';
import { factsOf, fieldsSet } from './json-facts.ts';
import { endingOf, outcomeFeatures, type SuccessProfile } from './outcome-features.ts';
import { OutcomeModel } from './outcome-model.ts';
import { countReturn, type ReturnCount } from './revisit.ts';
import {
  isIdLike,
  jaccard,
  lineKey,
  linesByKey,
  maskDigits,
  tokenize,
  valueShape,
  wordsOf,
} from './text.ts';
import { valueFlow } from './value-flow.ts';
import { WordFrequency } from './word-frequency.ts';

/** One real episode as the generic model keeps it. */
export interface RealEpisode {
  trajectory: Trajectory;
  view: EpisodeView;
  /** Ended by the env (not cut off) with reward 1. */
  success: boolean;
  /**
   * What the episode is, for tie-breaks: its task and its actions. Trajectory ids are drawn at
   * random, so hashing them made the same buffer answer differently from run to run.
   */
  key: string;
}

/** Step `t` of a real episode: the transition from `view.texts[t]` by `view.actions[t]`. */
export interface RealStep {
  episode: RealEpisode;
  t: number;
}

/** What the buffer showed about one action template. */
export interface TemplateStats {
  /** Steps the env carried out (not refused). */
  steps: number;
  /** Of those, the ones that ended the episode. */
  terminal: number;
  /** Of those, the ones that ended it with reward 1. */
  successes: number;
  /** Mean reward of the steps that did not end the episode. */
  stepReward: number;
  /** Mean reward of the episode ends that were not successes. */
  failureReward: number;
  /**
   * The same action taken again later in an episode from another state: how often, and how
   * often it answered the same (a lookup, whose answer does not depend on where the episode
   * stands). A repeat from the same state, or one that differs in a line or two (the last
   * action's message: the episode went and came back), tells nothing of that, and is not counted.
   */
  repeats: number;
  sameAnswers: number;
  /**
   * The same action from the same state in real episodes of two tasks: how often, and how often
   * it answered the same (whether another task's answer is this one's: a catalog all tasks
   * share, or a world of each task's own).
   */
  acrossTasks: number;
  sameAcrossTasks: number;
  /**
   * Field → how often the steps' JSON answers showed it about the ids they acted on, and how
   * often with another value than the episode had shown before (the step set it).
   */
  fields: Map<string, { shown: number; set: number }>;
  /** Steps taken while not listed in a state that lists actions, and how many the env refused. */
  unlisted: number;
  unlistedRefused: number;
  /**
   * Line key (see `lineKey`) → how many steps had lines of that key in both their state and
   * their next state, how many of those changed them, and how many steps' next states lost the
   * state's lines of that key: what the template's actions change (a move, the place) and what
   * they leave (what one holds).
   */
  lines: Map<string, { both: number; changed: number; dropped: number }>;
  /** How often the template's steps named an earlier state of their episode, and led back (see `revisit.ts`). */
  returns: ReturnCount;
  /** How the template's steps' values moved on pages with a frame (see `value-flow.ts`). */
  flows: Set<string>;
}

/** A template changes a line key when its steps changed it at least this often. */
const CHANGES = 0.5;
/** … over at least this many steps. */
const MIN_LINE_STEPS = 3;
/** A line key is part of the page's frame when at least this share of the buffer's texts have it. */
const FRAME_SHARE = 0.8;
/** Message lines two states may differ in and still be one state (see `nearlyExact`). */
const MESSAGE_LINES = 2;

/** True when the template's real steps mostly leave lines of `key` as they were. */
export function keepsLines(stats: TemplateStats, key: string): boolean {
  const count = stats.lines.get(key);
  return (
    count !== undefined && count.both >= MIN_LINE_STEPS && count.changed < CHANGES * count.both
  );
}

/**
 * The line keys of the page's frame (`isFrame`) that the template's real steps mostly change: a
 * move's place and exits, not what one holds.
 */
export function changesFrame(
  stats: TemplateStats,
  isFrame: (key: string) => boolean,
): (key: string) => boolean {
  return (key) => isFrame(key) && stats.lines.has(key) && !keepsLines(stats, key);
}

/** Real transitions of one template the model composes from, at most (a fixed sample). */
const MAX_CANDIDATES = 400;
/** Similar tasks whose successes profile how a task is done. */
const SIMILAR_TASKS = 10;
/** Real steps of one action kind (see `comparable`) needed to weigh features among them alone. */
const MIN_KIND_STEPS = 10;

/** What the model learnt; rebuilt whenever episodes were added since. */
interface Learnt {
  grammar: ActionGrammar;
  admissible: AdmissibleRules;
  byTemplate: Map<string, RealStep[]>;
  /** Template and values up to digits (`press[Go]`, `fetch[x-9]`) → a sample of steps. */
  byKind: Map<string, RealStep[]>;
  stats: Map<string, TemplateStats>;
  exact: Map<string, RealStep>;
  outcome: OutcomeModel;
  weights: Map<string, Map<string, number>>;
  features: WeakMap<RealStep, Set<string>>;
  /** Each step's `outcomeLabel`, once worked out. */
  outcomes: WeakMap<RealStep, string>;
  /** Weights' key (a template or a kind) → each step's summed feature weight under them. */
  totals: Map<string, WeakMap<RealStep, number>>;
  /** Each episode's instruction as content and phrasing words. */
  taskSets: TaskSets[];
  /** Template → the roles its values played in the real successes it ended. */
  endings: Map<string, Set<string>>;
  /** Instruction → the episodes most like it, best first. */
  similar: Map<string, RealEpisode[]>;
  /** Task and action → the real steps of this very task that took this very action. */
  inWorld: Map<string, RealStep[]>;
  /** The line keys most texts have (see {@link FRAME_SHARE}). */
  frame: Set<string>;
  /** Task → every line its real episodes' texts showed. */
  worldLines: Map<string, Set<string>>;
}

interface TaskSets {
  content: Set<string>;
  phrasing: Set<string>;
}

/**
 * Everything the generic experience model learns from the buffer's real episodes: the action
 * grammar, the wrappers that list admissible actions, each template's real transitions (to
 * compose from) and what they depended on, the initial states, and the outcome model.
 * {@link GenericKnowledge.add} learns more episodes; the learnt parts are rebuilt on next use.
 */
export class GenericKnowledge {
  private readonly episodes: RealEpisode[] = [];
  /** Words by the share of instructions they are in: a fifth or more is phrasing. */
  readonly taskWords = new WordFrequency(0.2);
  /**
   * Words by the share of episodes whose texts show them: half or more is the env's vocabulary
   * (labels, statuses), not a thing an episode is about.
   */
  readonly pageWords = new WordFrequency(0.5);
  private learnt: Learnt | undefined;

  /** Knowledge of these real trajectories. */
  static fromTrajectories(trajectories: Iterable<Trajectory>): GenericKnowledge {
    const knowledge = new GenericKnowledge();
    for (const t of trajectories) knowledge.add(t);
    return knowledge;
  }

  /** Learns one more real episode. */
  add(trajectory: Trajectory): void {
    const last = trajectory.steps.at(-1);
    const episode: RealEpisode = {
      trajectory,
      view: EpisodeView.ofTrajectory(trajectory),
      success: last?.terminated === true && last.reward >= 1,
      key: `${trajectory.task.id}\u0000${trajectory.steps.map((s) => s.action).join('\u0001')}`,
    };
    this.episodes.push(episode);
    this.taskWords.add(trajectory.task.instruction);
    this.pageWords.add(episode.view.texts.join('\n'));
    this.learnt = undefined;
  }

  /** A real episode of this very task (same id and instruction), if the buffer has one. */
  episodeOf(task: Task): RealEpisode | undefined {
    return this.episodes.find(
      (e) => e.trajectory.task.id === task.id && e.view.instruction === task.instruction,
    );
  }

  get grammar(): ActionGrammar {
    return this.ready().grammar;
  }

  get admissible(): AdmissibleRules {
    return this.ready().admissible;
  }

  get outcome(): OutcomeModel {
    return this.ready().outcome;
  }

  /** What the buffer showed about `template`; undefined for a template it never carried out. */
  stats(template: string): TemplateStats | undefined {
    return this.ready().stats.get(template);
  }

  /** The real transitions of `template` the model composes from (a fixed sample of them). */
  candidates(template: string): readonly RealStep[] {
    return this.ready().byTemplate.get(template) ?? [];
  }

  /** The real step of this very task from this very state by this very action, if one was seen. */
  exact(task: Task, state: string, action: string): RealStep | undefined {
    return this.ready().exact.get(exactKey(task, state, action));
  }

  /**
   * The real step of this very task by this very action from a state that is ours but for
   * message lines (line kinds outside the page's frame, at most {@link MESSAGE_LINES} of them)
   * one of the two states has and the other lacks: a refusal's message left on a form, the
   * answer to the last action. The one with the fewest such lines, and how many differ.
   */
  nearlyExact(
    task: Task,
    state: string,
    action: string,
  ): { step: RealStep; differing: number } | undefined {
    const ours = new Set(state.split('\n').filter((l) => l.trim()));
    let found: { step: RealStep; differing: number } | undefined;
    for (const step of this.inWorld(task, action)) {
      const theirs = new Set(
        (step.episode.view.texts[step.t] as string).split('\n').filter((l) => l.trim()),
      );
      const extra = [...theirs].filter((l) => !ours.has(l));
      const missing = [...ours].filter((l) => !theirs.has(l));
      // Only one side may hold lines the other lacks: a changed line is another state.
      if (extra.length > 0 && missing.length > 0) continue;
      const differing = [...extra, ...missing];
      if (differing.length === 0 || differing.length > MESSAGE_LINES) continue;
      if (differing.some((line) => this.isFrame(lineKey(line)))) continue;
      if (!found || differing.length < found.differing)
        found = { step, differing: differing.length };
    }
    return found;
  }

  /** Every real step of this very task (same id and instruction) that took this very action. */
  inWorld(task: Task, action: string): readonly RealStep[] {
    return this.ready().inWorld.get(worldKey(task, action)) ?? [];
  }

  /** Every line the real episodes of this very task showed (empty for a task the buffer lacks). */
  worldLines(task: Task): ReadonlySet<string> {
    return this.ready().worldLines.get(worldKey(task, '')) ?? new Set();
  }

  /**
   * True when `key` is a line key of the page's frame: most of the buffer's texts have a line of
   * it (a place, what one holds), unlike the message of the last action.
   */
  isFrame(key: string): boolean {
    return this.ready().frame.has(key);
  }

  /** The context features of a real step (see `contextFeatures`). */
  features(step: RealStep): Set<string> {
    const learnt = this.ready();
    const known = learnt.features.get(step);
    if (known) return known;
    const action = step.episode.view.actions[step.t] as string;
    const features = contextFeatures(
      step.episode.view,
      step.t,
      action,
      learnt.grammar,
      this.taskWords,
    );
    learnt.features.set(step, features);
    return features;
  }

  /** What a real step led to, coarsely (see `outcomeLabel`): the outcome its context should tell. */
  outcomeOf(step: RealStep): string {
    const learnt = this.ready();
    let label = learnt.outcomes.get(step);
    if (label === undefined) {
      label = outcomeLabel(step, this.taskWords, learnt.grammar);
      learnt.outcomes.set(step, label);
    }
    return label;
  }

  /**
   * The real steps to compose `action`'s answer from, and the key their feature weights are
   * learnt under (see `weights`): the steps of its kind, the same template with the same values
   * up to digits (the same button: `press[Go]`, not every press), where there are enough of
   * them and their outcomes differ, so that what decides this kind's outcome (a form field left
   * unset) is weighed among its own steps, not drowned by what tells one page's presses from
   * another's; else the template's.
   */
  comparable(action: string): { key: string; steps: readonly RealStep[] } {
    const learnt = this.ready();
    const key = kindOf(learnt.grammar, action);
    const steps = learnt.byKind.get(key) ?? [];
    if (steps.length >= MIN_KIND_STEPS && new Set(steps.map((s) => this.outcomeOf(s))).size > 1)
      return { key, steps };
    const { template } = learnt.grammar.parse(action);
    return { key: template, steps: this.candidates(template) };
  }

  /** The summed weight of a real step's context features under the weights of `key`. */
  totalWeight(step: RealStep, key: string): number {
    const learnt = this.ready();
    const totals = learnt.totals.get(key) ?? new WeakMap<RealStep, number>();
    learnt.totals.set(key, totals);
    const known = totals.get(step);
    if (known !== undefined) return known;
    const total = totalWeight(this.features(step), this.weights(key));
    totals.set(step, total);
    return total;
  }

  /**
   * How much each context feature told about the outcome of the real steps of `key`: a template,
   * or a kind of action (see `comparable`).
   */
  weights(key: string): Map<string, number> {
    const learnt = this.ready();
    const known = learnt.weights.get(key);
    if (known) return known;
    const steps = learnt.byTemplate.get(key) ?? learnt.byKind.get(key) ?? [];
    const weights = informationGain(
      steps.map((step) => ({ features: this.features(step), label: this.outcomeOf(step) })),
    );
    learnt.weights.set(key, weights);
    return weights;
  }

  /**
   * The `k` real episodes whose tasks are most like `instruction` (`exclude` left out): the very
   * instruction first, then by the share of content words in common, and half as much by the
   * share of phrasing in common (tasks of the same kind are worded alike).
   */
  similarEpisodes(instruction: string, k: number, exclude?: RealEpisode): RealEpisode[] {
    const learnt = this.ready();
    let ranked = learnt.similar.get(instruction);
    if (!ranked) {
      const ours = this.taskSets(instruction);
      ranked = this.episodes
        .map((episode, i) => {
          const theirs = learnt.taskSets[i] as TaskSets;
          const same = episode.trajectory.task.instruction === instruction ? 2 : 0;
          const tie = hashString(`${instruction}#${episode.key}`) / 2 ** 32 / 1e3;
          const score =
            same +
            jaccard(ours.content, theirs.content) +
            jaccard(ours.phrasing, theirs.phrasing) / 2;
          return { episode, score: score + tie };
        })
        .sort((a, b) => b.score - a.score)
        .slice(0, SIMILAR_TASKS * 3 + 1)
        .map((s) => s.episode);
      if (learnt.similar.size > 10_000) learnt.similar.clear();
      learnt.similar.set(instruction, ranked);
    }
    return ranked.filter((e) => e !== exclude).slice(0, k);
  }

  /** An instruction's content words and phrasing words. */
  private taskSets(instruction: string): TaskSets {
    const words = new Set(wordsOf(instruction));
    const content = new Set([...words].filter((w) => this.taskWords.isContent(w)));
    return { content, phrasing: new Set([...words].filter((w) => !content.has(w))) };
  }

  /**
   * True when a real success ended as this ending does (the same template, values in the same
   * roles and shapes; see `endingOf`): one of the successes of tasks like `instruction`, or,
   * when the buffer has none, any real success. An ending unlike them is not scored a success.
   */
  endsLikeASuccess(instruction: string, ending: { template: string; roles: string }): boolean {
    const profiles = this.successProfiles(instruction);
    if (profiles.length > 0)
      return profiles.some((p) => p.final === ending.template && p.finalRoles === ending.roles);
    return this.ready().endings.get(ending.template)?.has(ending.roles) === true;
  }

  /** How real successes of tasks like `instruction` went (`exclude` left out). */
  successProfiles(instruction: string, exclude?: RealEpisode): SuccessProfile[] {
    const grammar = this.ready().grammar;
    return this.similarEpisodes(instruction, SIMILAR_TASKS * 3, exclude)
      .filter((e) => e.success)
      .slice(0, SIMILAR_TASKS)
      .map((e) => profile(e, grammar));
  }

  private ready(): Learnt {
    if (this.learnt) return this.learnt;
    const actions = this.episodes.flatMap((e) => [
      ...e.trajectory.steps.map((s) => s.action),
      ...(e.trajectory.initial.actions ?? []),
      ...e.trajectory.steps.flatMap((s) => s.observation.actions ?? []),
    ]);
    const grammar = ActionGrammar.learn(actions.filter((a) => !/<[^<>]+>/.test(a)));
    const all = new Map<string, RealStep[]>();
    const stats = new Map<string, TemplateStats>();
    const exact = new Map<string, RealStep>();
    const inWorld = new Map<string, RealStep[]>();
    const answers = new Map<string, { task: string; answer: string }>();
    for (const episode of this.episodes)
      indexEpisode(episode, grammar, all, stats, { exact, inWorld, answers });
    const byTemplate = new Map(
      [...all].map(([template, steps]) => [template, sampleOf(steps)] as const),
    );
    const kinds = new Map<string, RealStep[]>();
    for (const steps of all.values())
      for (const step of steps) {
        const key = kindOf(grammar, step.episode.view.actions[step.t] as string);
        kinds.set(key, [...(kinds.get(key) ?? []), step]);
      }
    const byKind = new Map([...kinds].map(([key, steps]) => [key, sampleOf(steps)] as const));
    const admissible = AdmissibleRules.learn(
      grammar,
      this.episodes.map((e) => ({
        view: e.view,
        lists: [
          e.trajectory.initial.actions,
          ...e.trajectory.steps.map((s) => s.observation.actions),
        ],
      })),
    );
    const frame = frameKeys(this.episodes);
    countReturns(this.episodes, grammar, stats, frame);
    collectFlows(this.episodes, grammar, stats, frame);
    this.learnt = {
      grammar,
      admissible,
      byTemplate,
      byKind,
      stats,
      exact,
      outcome: OutcomeModel.fit([]),
      weights: new Map(),
      features: new WeakMap(),
      outcomes: new WeakMap(),
      totals: new Map(),
      taskSets: this.episodes.map((e) => this.taskSets(e.trajectory.task.instruction)),
      similar: new Map(),
      endings: successEndings(this.episodes, grammar),
      inWorld,
      frame,
      worldLines: linesOfTasks(this.episodes),
    };
    this.learnt.outcome = this.fitOutcome(grammar);
    return this.learnt;
  }

  /** The outcome model, fit on every real episode the env ended. */
  private fitOutcome(grammar: ActionGrammar): OutcomeModel {
    const samples = this.episodes
      .filter((e) => e.trajectory.steps.at(-1)?.terminated === true)
      .map((e) => {
        const now = e.trajectory.steps.length - 1;
        return {
          features: outcomeFeatures(
            e.view,
            now,
            e.view.actions[now] as string,
            e.view.texts[now + 1] as string,
            grammar,
            this.taskWords,
            this.successProfiles(e.trajectory.task.instruction, e),
          ),
          success: e.success,
        };
      });
    return OutcomeModel.fit(samples);
  }
}

function indexEpisode(
  episode: RealEpisode,
  grammar: ActionGrammar,
  all: Map<string, RealStep[]>,
  stats: Map<string, TemplateStats>,
  {
    exact,
    inWorld,
    answers,
  }: {
    exact: Map<string, RealStep>;
    inWorld: Map<string, RealStep[]>;
    /** State and action → the first task that took it and its answer. */
    answers: Map<string, { task: string; answer: string }>;
  },
): void {
  const { trajectory, view } = episode;
  const answered = new Map<string, { state: string; answer: string }>();
  trajectory.steps.forEach((step, t) => {
    const { template } = grammar.parse(step.action);
    const s = stats.get(template) ?? emptyStats();
    stats.set(template, s);
    const state = t === 0 ? trajectory.initial : trajectory.steps[t - 1]?.observation;
    const refused = step.info?.invalidAction !== undefined;
    if (state?.actions && !isListed(state.actions, step.action)) {
      s.unlisted++;
      if (refused) s.unlistedRefused++;
    }
    if (refused) return;
    const ref: RealStep = { episode, t };
    push(all, template, ref);
    exact.set(exactKey(trajectory.task, view.texts[t] as string, step.action), ref);
    push(inWorld, worldKey(trajectory.task, step.action), ref);
    countLines(s, view.texts[t] as string, view.texts[t + 1] as string);
    if (step.terminated && step.reward >= 1) s.successes++;
    else if (step.terminated) {
      const failures = s.terminal - s.successes;
      s.failureReward = (s.failureReward * failures + step.reward) / (failures + 1);
    } else {
      const plain = s.steps - s.terminal;
      s.stepReward = (s.stepReward * plain + step.reward) / (plain + 1);
    }
    if (step.terminated) s.terminal++;
    s.steps++;
    const ids = grammar.parse(step.action).values.filter(isIdLike);
    if (ids.length > 0) {
      const earlier = factsOf(view.texts.slice(0, t + 1) as string[]);
      for (const [field, changed] of fieldsSet(
        earlier,
        factsOf([view.texts[t + 1] as string]),
        ids,
      )) {
        const count = s.fields.get(field) ?? { shown: 0, set: 0 };
        count.shown++;
        if (changed) count.set++;
        s.fields.set(field, count);
      }
    }
    const before = answered.get(step.action);
    const from = view.texts[t] as string;
    if (before !== undefined && anotherPage(before.state, from)) {
      s.repeats++;
      if (before.answer === step.observation.text) s.sameAnswers++;
    }
    answered.set(step.action, { state: from, answer: step.observation.text });
    const key = `${from}\u0000${step.action}`;
    const first = answers.get(key);
    if (!first) answers.set(key, { task: trajectory.task.id, answer: step.observation.text });
    else if (first.task !== trajectory.task.id) {
      s.acrossTasks++;
      if (first.answer === step.observation.text) s.sameAcrossTasks++;
    }
  });
}

/**
 * True when `b` is another page than `a`, not the same one with another first line (the last
 * action's message): it shares no line with it, or differs in more than one.
 */
function anotherPage(a: string, b: string): boolean {
  const lines = b.split('\n').filter((l) => l.trim().length > 0);
  const have = new Set(a.split('\n'));
  const differing = lines.filter((l) => !have.has(l)).length;
  return differing === lines.length || differing > 1;
}

/** Template → the roles its values played in the real successes it ended. */
function successEndings(
  episodes: readonly RealEpisode[],
  grammar: ActionGrammar,
): Map<string, Set<string>> {
  const endings = new Map<string, Set<string>>();
  for (const e of episodes) {
    if (!e.success) continue;
    const now = e.view.actions.length - 1;
    const { template, roles } = endingOf(e.view, now, e.view.actions[now] as string, grammar);
    const seen = endings.get(template) ?? new Set<string>();
    seen.add(roles);
    endings.set(template, seen);
  }
  return endings;
}

function emptyStats(): TemplateStats {
  return {
    steps: 0,
    terminal: 0,
    successes: 0,
    stepReward: 0,
    failureReward: 0,
    repeats: 0,
    sameAnswers: 0,
    acrossTasks: 0,
    sameAcrossTasks: 0,
    unlisted: 0,
    unlistedRefused: 0,
    fields: new Map(),
    lines: new Map(),
    returns: { named: 0, back: 0 },
    flows: new Set(),
  };
}

/** Counts, for each line key of the state, whether the step changed its lines or lost them. */
function countLines(stats: TemplateStats, before: string, after: string): void {
  const a = linesByKey(before);
  const b = linesByKey(after);
  for (const [key, lines] of a) {
    const next = b.get(key);
    const count = stats.lines.get(key) ?? { both: 0, changed: 0, dropped: 0 };
    if (next === undefined) count.dropped++;
    else {
      count.both++;
      if (next !== lines) count.changed++;
    }
    stats.lines.set(key, count);
  }
}

/** Counts, per template, the real steps that named an earlier state and led back to it. */
function countReturns(
  episodes: readonly RealEpisode[],
  grammar: ActionGrammar,
  stats: ReadonlyMap<string, TemplateStats>,
  frame: ReadonlySet<string>,
): void {
  for (const { trajectory, view } of episodes)
    trajectory.steps.forEach((step, t) => {
      if (step.info?.invalidAction !== undefined) return;
      const { template, values } = grammar.parse(step.action);
      const s = stats.get(template);
      if (!s || ![...s.lines.keys()].some((key) => frame.has(key))) return;
      countReturn(
        s.returns,
        view,
        t,
        values,
        changesFrame(s, (key) => frame.has(key)),
      );
    });
}

/** Each template's value flows (see `valueFlow`) over its real steps that changed the page. */
function collectFlows(
  episodes: readonly RealEpisode[],
  grammar: ActionGrammar,
  stats: ReadonlyMap<string, TemplateStats>,
  frame: ReadonlySet<string>,
): void {
  if (frame.size === 0) return;
  for (const { trajectory, view } of episodes)
    trajectory.steps.forEach((step, t) => {
      const before = view.texts[t] as string;
      const after = view.texts[t + 1] as string;
      if (step.info?.invalidAction !== undefined || before === after) return;
      const { template, values } = grammar.parse(step.action);
      stats.get(template)?.flows.add(valueFlow(before, after, values, (key) => frame.has(key)));
    });
}

/** The line keys at least {@link FRAME_SHARE} of the episodes' texts have. */
function frameKeys(episodes: readonly RealEpisode[]): Set<string> {
  const counts = new Map<string, number>();
  let texts = 0;
  for (const e of episodes)
    for (const text of e.view.texts) {
      texts++;
      for (const key of linesByKey(text).keys()) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return new Set([...counts].filter(([, n]) => n >= FRAME_SHARE * texts).map(([key]) => key));
}

/** Task → the lines its real episodes' texts showed. */
function linesOfTasks(episodes: readonly RealEpisode[]): Map<string, Set<string>> {
  const byTask = new Map<string, Set<string>>();
  for (const e of episodes) {
    const key = worldKey(e.trajectory.task, '');
    const lines = byTask.get(key) ?? new Set<string>();
    for (const text of e.view.texts) for (const line of text.split('\n')) lines.add(line);
    byTask.set(key, lines);
  }
  return byTask;
}

function worldKey(task: Task, action: string): string {
  return `${task.id}\u0000${task.instruction}\u0000${action}`;
}

function exactKey(task: Task, state: string, action: string): string {
  return `${task.id}\u0000${task.instruction}\u0000${state}\u0000${action}`;
}

/** An action's kind: its template and its values up to digits (`press[Go]`, `fetch[x-9]`). */
function kindOf(grammar: ActionGrammar, action: string): string {
  const { template, values } = grammar.parse(action);
  return `${template}\u0000${values.map(maskDigits).join('\u0001')}`;
}

/** A fixed sample of at most {@link MAX_CANDIDATES} steps, the same whatever order they came in. */
function sampleOf(steps: readonly RealStep[]): RealStep[] {
  if (steps.length <= MAX_CANDIDATES) return [...steps];
  const key = (s: RealStep) => hashString(`${s.episode.key}#${s.t}`);
  return [...steps].sort((a, b) => key(a) - key(b)).slice(0, MAX_CANDIDATES);
}

/**
 * What a real step led to, coarsely: whether it ended the episode, whether the state stayed as
 * it was, the first tokens of the next text (digits masked, and the action's own values: the
 * answer's kind, not which thing it named, which would make the context features tell things
 * apart instead of circumstances), and whether the next text brought a content word of the
 * instruction that neither the state nor the action had (the step reached what the task is
 * about): the outcome the context features should tell apart.
 */
function outcomeLabel(
  { episode, t }: RealStep,
  taskWords: WordFrequency,
  grammar: ActionGrammar,
): string {
  const step = episode.trajectory.steps[t];
  const before = episode.view.texts[t] as string;
  const after = episode.view.texts[t + 1] as string;
  const valueWords = new Set(
    grammar
      .parse(step?.action ?? '')
      .values.flatMap((v) => tokenize(v).map((token) => token.text.toLowerCase())),
  );
  // The action's values and the task's own words masked: "stays in <t>", whichever town the
  // task names, is one outcome, and "find a stay !" (the form refused) another.
  const taskOwn = new Set(taskWords.of(episode.view.instruction));
  const head = tokenize(after)
    .slice(0, 4)
    .map((token) => {
      const word = token.text.toLowerCase();
      return valueWords.has(word) ? '<v>' : taskOwn.has(word) ? '<t>' : maskDigits(token.text);
    })
    .join(' ');
  const known = new Set(wordsOf(`${before}\n${step?.action ?? ''}`));
  const found = new Set(wordsOf(after));
  const reached = taskWords.of(episode.view.instruction).some((w) => found.has(w) && !known.has(w));
  return `${step?.terminated ? 'end' : ''}|${before === after ? 'same' : head}|${reached ? 'task' : ''}`;
}

function profile(episode: RealEpisode, grammar: ActionGrammar): SuccessProfile {
  const templates = episode.view.actions
    .filter((_, i) => !episode.view.invalid[i])
    .map((a) => grammar.parse(a).template);
  const counts = new Map<string, number>();
  for (const t of templates) counts.set(t, (counts.get(t) ?? 0) + 1);
  const now = episode.view.actions.length - 1;
  const values = grammar.parse(episode.view.actions[now] ?? '').values;
  return {
    final: templates.at(-1) ?? '',
    templates: new Set(templates),
    counts,
    steps: templates.length,
    finalShape: values.map(valueShape).join('\u0001'),
    finalRoles: endingOf(episode.view, now, episode.view.actions[now] ?? '', grammar).roles,
  };
}

/** Appends `value` to the list `map` holds at `key`. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
