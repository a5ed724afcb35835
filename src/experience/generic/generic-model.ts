import { hashString } from '../../core/rng.ts';
import { copyObservation, type Observation, type Step, type Task } from '../../core/types.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from '../experience-model.ts';
import { anyWrong, outcomeDoubt } from '../uncertainty.ts';
import { type ActionGrammar, isListed } from './action-grammar.ts';
import { carryFields } from './carried-fields.ts';
import { composeNext } from './compose.ts';
import { contextFeatures, totalWeight, weightedAgreement } from './context-features.ts';
import { EpisodeView } from './episode.ts';
import { applyFacts, factsOf, withoutMentions } from './json-facts.ts';
import {
  changesFrame,
  type GenericKnowledge,
  keepsLines,
  type RealStep,
  type TemplateStats,
} from './knowledge.ts';
import { nextActions } from './next-actions.ts';
import { endingOf, outcomeFeatures } from './outcome-features.ts';
import { backTo, leadsBack, type NamedState, namedEarlierState } from './revisit.ts';
import { containsValue, jaccard, lineOverlap, linesByKey, substitute, wordsOf } from './text.ts';
import { valueFlow } from './value-flow.ts';
import { type EpisodeStep, instructionMapping, valueMapping } from './value-mapping.ts';

/** A template answers a repeated action the same way this often (or more) to be replayed. */
const SAME_ANSWER_SHARE = 0.8;
/** … over at least this many repeats in the buffer. */
const MIN_REPEATS = 3;
/** A real step of the most similar task counts this much more when picking a step (less down the list). */
const LIKENESS_WEIGHT = 0.5;
/** Tasks most like this one whose real steps are preferred, a little, to compose from. */
const SIMILAR_TASKS = 20;
/** Features weighing at least this share of the heaviest decide first (see `agreeing`). */
const DECISIVE_SHARE = 0.5;
/** Real steps, best first, tried for a composition whose values move as real ones did. */
const FLOW_TRIES = 5;
/** Initial states remembered (by task id) to complete the episodes of later predictions. */
const MAX_STARTS = 10_000;

/**
 * The LLM-free experience model for any env, learnt only from the buffer's real episodes (no
 * code or vocabulary of any env): what the buffer shows of the env's action grammar, its states,
 * how its actions change them and how its episodes end.
 *
 * - Initial states are this task's real episode start as it was (its listed actions too), or the
 *   most similar task's with this task's values put in.
 * - A step already taken from the same state in this episode shows what it showed; an action the
 *   buffer shows answering the same whenever repeated (a lookup) shows its earlier answer again,
 *   with what the episode learnt since; a step of the very task seen in the buffer is replayed.
 * - Any other step is composed from a real transition of the same action template, the one whose
 *   circumstances agree most on what mattered to such steps' outcomes (where the action's values
 *   were shown, the record they came from, the state's words), with the real step's values
 *   swapped for this episode's (so an id never shown is answered as the buffer's never-shown ids
 *   were, a not-found, and a shown one in the shape the real answer had).
 * - JSON answers keep what the episode showed about each id (a change it made stays made).
 * - Admissible actions are read from this episode's texts by learnt wrappers, never copied from
 *   another task's episode.
 * - A step this very task's real episode took from this very state, or from this state but for
 *   a message line or two (see `GenericKnowledge.nearlyExact`), or from a state with the same
 *   frame lines (the line kinds most pages have: a place, what one holds), is replayed as it was.
 * - The real step says whether the episode ends. An ending is never a coin flip: the outcome
 *   model gives the probability of success from what the episode saw and did (calibrated on
 *   held-out real episodes), and its verdicts (`OutcomeModel.verdict`) call it a success at or
 *   above the threshold where ≥ 90% of held-out real endings succeeded, a failure at or below
 *   the one where as many failed, and leave it unjudged in between. An ending is unjudged too
 *   where what it rests on was shown by no real episode of this task (see `unvouched`). An
 *   unjudged ending (`judged: false`) scores a failure that trainers leave out rather than learn
 *   to avoid.
 *
 * Each prediction's uncertainty says how much of it the buffer showed: 0 for a replay (this
 * task's real step from this very state, this episode's own answer); for this task's real step
 * from this state but for a message line, the share of lines that differ; for a repeated lookup
 * and for this world's own record looked up, the share of real repeats answered otherwise; for a composed step, 1 − the source's overlap with it
 * (see {@link sourceDistance}), and at an ending scored by the outcome model, that or its doubt
 * (see `outcomeDoubt`); 1 for an unjudged ending and for an action of a kind the buffer never
 * carried out.
 */
export class GenericExperienceModel implements ExperienceModel {
  readonly id = 'llm-free/generic';
  /** It learnt the buffer's real episodes beforehand; per-step demonstrations tell it nothing. */
  readonly readsDemonstrations = false;
  private readonly starts = new Map<string, Observation>();

  constructor(readonly knowledge: GenericKnowledge) {}

  async initial(task: Task, _demonstrations: readonly RetrievedTransition[]): Promise<Observation> {
    const own = this.knowledge.episodeOf(task);
    const source = own ?? this.knowledge.similarEpisodes(task.instruction, 1)[0];
    if (!source) return { text: task.instruction, instruction: task.instruction };
    const start = source.trajectory.initial;
    if (own) {
      // This very task's real start: its state and the actions it listed, as they were.
      const observation = { ...copyObservation(start), instruction: task.instruction };
      this.remember(task, observation);
      return observation;
    }
    const mapping = instructionMapping(source.view.instruction, task.instruction);
    const text = substitute(start.text, mapping);
    const view = new EpisodeView(task.instruction, [text], [], []);
    const observation: Observation = { text, instruction: task.instruction };
    if (start.actions) {
      observation.actions = nextActions(
        start.actions,
        { view: source.view, now: 0 },
        { view, now: 0 },
        mapping,
        this.knowledge.grammar,
        this.knowledge.admissible,
      );
    }
    this.remember(task, observation);
    return observation;
  }

  /** Keeps an episode's initial state to complete the episodes of later predictions. */
  private remember(task: Task, observation: Observation): void {
    if (this.starts.size >= MAX_STARTS) this.starts.clear();
    this.starts.set(task.id, copyObservation(observation));
  }

  async predict({
    task,
    history,
    initial,
    state,
    action,
  }: ExperienceRequest): Promise<ExperiencePrediction> {
    const knowledge = this.knowledge;
    const view = EpisodeView.ofRequest(task, history, state, initial ?? this.starts.get(task.id));
    const now = view.last;
    const { template } = knowledge.grammar.parse(action);
    const stats = knowledge.stats(template);
    const candidates = knowledge.candidates(template);
    if (candidates.length === 0 || refused(state, action, stats)) {
      return {
        reasoning: `"${action}" (${template}) is not an action the buffer's episodes carried out${candidates.length > 0 ? ' when it was not listed' : ''}: nothing changes.`,
        nextState: { ...copyObservation(state), instruction: task.instruction },
        reward: 0,
        terminated: false,
        uncertainty: refusalDoubt(candidates.length > 0 ? stats : undefined),
      };
    }
    const replay = this.replayInEpisode(view, now, history, action, stats);
    if (replay) return replay;
    // This task's real step from this very state; or from this state but for a message line or
    // two (a refusal's message left on a form): the same place in the same world.
    const same = knowledge.exact(task, state.text, action);
    const near = same ? undefined : knowledge.nearlyExact(task, state.text, action);
    const exact = same ?? near?.step;
    if (exact) {
      const real = exact.episode.trajectory.steps[exact.t] as Step;
      const replayed = `this task's real episode ${exact.episode.trajectory.id} took "${action}" from this very state${near ? ` but for ${near.differing} message line${near.differing > 1 ? 's' : ''}` : ''} (step ${exact.t + 1}): replayed`;
      // The same page reached another way (through a page composed from another task) is not
      // the same world: a success there is vouched for only if the way here is this task's.
      const unvouched =
        real.terminated && real.reward > 0
          ? this.unvouched(task, view, now, action, stats as TemplateStats, real.observation.text)
          : [];
      return {
        reasoning:
          unvouched.length > 0
            ? `${replayed}, but the way here passed where no real episode of this task stood ("${clip(unvouched[0] as string)}"): unjudged, scored a failure and left out of training.`
            : `${replayed}.`,
        nextState: { ...copyObservation(real.observation), instruction: task.instruction },
        reward: unvouched.length > 0 ? (stats as TemplateStats).failureReward : real.reward,
        terminated: real.terminated,
        ...(unvouched.length > 0 && { judged: false }),
        // A message line apart: as unsure as the share of the state's lines that differ.
        uncertainty:
          unvouched.length > 0
            ? 1
            : near
              ? near.differing /
                (near.differing + state.text.split('\n').filter((l) => l.trim()).length)
              : 0,
      };
    }
    return this.compose(task, view, now, action, candidates, stats as TemplateStats);
  }

  /**
   * The answer this episode already got: the same action from the same state, or a repeated
   * action of a template whose real answers never change when repeated (shown again with what
   * the episode learnt since).
   */
  private replayInEpisode(
    view: EpisodeView,
    now: number,
    history: readonly Step[],
    action: string,
    stats: TemplateStats | undefined,
  ): ExperiencePrediction | undefined {
    const lookup = stats !== undefined && isLookup(stats);
    for (let i = now - 1; i >= 0; i--) {
      if (view.actions[i] !== action || view.invalid[i]) continue;
      const sameState = view.texts[i] === view.texts[now];
      if (!sameState && !lookup) continue;
      const earlier = history[i];
      if (!earlier || earlier.terminated) continue;
      const facts = factsOf(view.texts.slice(0, now + 1));
      const text = sameState
        ? earlier.observation.text
        : applyFacts(earlier.observation.text, facts);
      const observation: Observation = { ...copyObservation(earlier.observation), text };
      if (!sameState && earlier.observation.actions) {
        const target = { view: extend(view, text, action), now: now + 1 };
        observation.actions = nextActions(
          earlier.observation.actions,
          { view, now: i + 1 },
          target,
          new Map(),
          this.knowledge.grammar,
          this.knowledge.admissible,
        );
      }
      return {
        reasoning: sameState
          ? `"${action}" was taken from this same state at step ${i + 1}: the same answer.`
          : `"${action}" was answered at step ${i + 1}, and real episodes answer it the same whenever it is repeated: shown again with what this episode showed since.`,
        nextState: observation,
        reward: stats?.stepReward ?? 0,
        terminated: false,
        // A lookup repeated from elsewhere: as unsure as real repeats were to answer the same.
        uncertainty: sameState
          ? 0
          : 1 - (stats as TemplateStats).sameAnswers / (stats as TemplateStats).repeats,
      };
    }
    return undefined;
  }

  /**
   * The line keys that tell where an action of this template stands: the keys of the page's
   * frame (most texts have them: a place, its exits, what is there, what one holds; not the
   * message of the last action) that the template's real steps had in their states.
   */
  private placeKeys(stats: TemplateStats): string[] {
    return [...stats.lines.keys()].filter((key) => this.knowledge.isFrame(key));
  }

  /**
   * A real step of this very task that took this very action from where this episode stands:
   * its state's frame lines are ours, but for at most one line kind the template changes anyway
   * (what lies in the room one leaves) that names none of the action's values; never one it keeps
   * (where one stands when one drops a thing: it decides the outcome). The one with the fewest
   * differences and the most lines in common with our state among several. Undefined when pages
   * have no frame.
   */
  private samePlace(
    task: Task,
    view: EpisodeView,
    now: number,
    action: string,
    stats: TemplateStats,
  ): RealStep | undefined {
    const keys = this.placeKeys(stats);
    if (keys.length === 0) return undefined;
    const state = view.texts[now] as string;
    const ours = linesByKey(state);
    const { values } = this.knowledge.grammar.parse(action);
    let found: RealStep | undefined;
    let most = Number.NEGATIVE_INFINITY;
    for (const step of this.knowledge.inWorld(task, action)) {
      const text = step.episode.view.texts[step.t] as string;
      const theirs = linesByKey(text);
      const differing = keys.filter((key) => ours.get(key) !== theirs.get(key));
      const valued = (key: string) =>
        values.some(
          (v) => containsValue(ours.get(key) ?? '', v) || containsValue(theirs.get(key) ?? '', v),
        );
      const kept = (key: string) => keepsLines(stats, key);
      if (differing.length > 1 || differing.some(valued) || differing.some(kept)) continue;
      const overlap = lineOverlap(text, state) - differing.length;
      if (overlap > most) {
        most = overlap;
        found = step;
      }
    }
    return found;
  }

  /**
   * What an ending rests on that no real episode of this very task showed: an ending in a world
   * the buffer does not vouch for, which is not scored a success. Where pages have a frame the
   * ending's template keeps (a place, its exits), those lines of every state of the episode (the
   * way there, too); where they have none (a JSON answer, a form), the line each value of each
   * step (the ending's too) was last shown in before it was taken (the record it answers about,
   * the option it picked), and the lines of every page a step acted on: the page the ending
   * stands on and each page of the way whose step went on from what it offered (its button); a
   * page left by a lookup, by a step back to a page seen before, or by a step naming nothing it
   * showed (a record looked up, a room looked at and left) is not. A task
   * with no real episode in the buffer vouches for nothing. Exact replays of this task's real
   * endings are held to it too: the same page reached another way is not the same world. On
   * pages with a frame, too, every step of the way (the ending's own, to `next`, included) whose
   * values moved as no real step of its template's did (see `value-flow.ts`): a composition the
   * real env would not have made.
   */
  private unvouched(
    task: Task,
    view: EpisodeView,
    now: number,
    action: string,
    stats: TemplateStats,
    next: string,
  ): string[] {
    const seen = this.knowledge.worldLines(task);
    const out: string[] = [];
    const state = view.texts[now] as string;
    const framed = [...linesByKey(state).keys()].some(
      (key) => this.knowledge.isFrame(key) && keepsLines(stats, key),
    );
    if (framed) {
      // The whole way here, not just the last page: a path through rooms composed from another
      // world may end in a room of this one and still not be a way the real world has.
      for (let i = 0; i <= now; i++)
        for (const [key, lines] of linesByKey(view.texts[i] as string)) {
          if (!this.knowledge.isFrame(key) || !keepsLines(stats, key)) continue;
          for (const line of lines.split('\n')) if (!seen.has(line)) out.push(line);
        }
      const texts = [...view.texts.slice(0, now + 1), next];
      const actions = [...view.actions.slice(0, now), action];
      actions.forEach((a, i) => {
        const before = texts[i] as string;
        const after = texts[i + 1] as string;
        // An unknown start (empty), a refused step and a step that changed nothing move nothing.
        if (before === '' || before === after || (i < now && view.invalid[i])) return;
        const { template, values } = this.knowledge.grammar.parse(a);
        const flows = this.knowledge.stats(template)?.flows;
        const flow = valueFlow(before, after, values, (key) => this.knowledge.isFrame(key));
        if (flows !== undefined && !flows.has(flow))
          out.push(`step ${i + 1}, "${a}", moved its values as no real step of its kind did`);
      });
      return out;
    }
    // What each step of the way acted on: the line each of its values was last shown in (an
    // option picked from a search's results, an id a lookup listed). A value taken from a page
    // composed from another task's episode (results for other dates, the ids of another record)
    // makes what follows it another world, however real the last page looks.
    const grammar = this.knowledge.grammar;
    const actions = [...view.actions.slice(0, now), action];
    actions.forEach((a, i) => {
      if (i < now && view.invalid[i]) return;
      for (const value of grammar.parse(a).values) {
        // A value the task names was taken from the task, whatever page also showed it.
        if (containsValue(view.instruction, value)) continue;
        const at = view.lastShowing(value, i);
        if (at === undefined) continue;
        const line = (view.texts[at] as string).split('\n').find((l) => containsValue(l, value));
        if (line !== undefined && !seen.has(line)) out.push(line);
      }
    });
    // And every page a step acted on: the page the ending stands on (a form as filled, the
    // record it acts on, the page an answer is read from) and each page of the way whose step
    // went on from what the page itself offered (the room it shows, booked by its button). A page
    // left by a lookup (a template whose repeats answer alike), by a step back to a page the
    // episode had seen (a room looked at and left), or by a step naming nothing the page showed
    // (a lookup of another record) was not acted on, and a composed one is no other world.
    for (let i = 0; i <= now; i++) {
      const text = view.texts[i] as string;
      if (i < now) {
        const parsed = grammar.parse(view.actions[i] as string);
        const stats = this.knowledge.stats(parsed.template);
        const back = view.texts.slice(0, i).includes(view.texts[i + 1] as string);
        const offered =
          parsed.values.length === 0 || parsed.values.some((v) => containsValue(text, v));
        if (view.invalid[i] || back || !offered || (stats !== undefined && answersAlike(stats)))
          continue;
      }
      for (const line of text.split('\n')) if (line.trim() && !seen.has(line)) out.push(line);
    }
    return out;
  }

  /**
   * The earlier state of this episode the action leads back to (see `revisit.ts`), when the
   * template's real steps that named one mostly led back to it, with the frame keys it changes.
   */
  private namedBack(
    view: EpisodeView,
    now: number,
    values: readonly string[],
    stats: TemplateStats,
  ): (NamedState & { changes: (key: string) => boolean }) | undefined {
    if (!leadsBack(stats.returns)) return undefined;
    const changes = changesFrame(stats, (key) => this.knowledge.isFrame(key));
    const named = namedEarlierState(view, now, values, changes);
    return named && { ...named, changes };
  }

  /**
   * The next text of `action` composed from the real step `best` (see `composeNext`), and
   * whether its values moved as real steps of the template's did (`flows`).
   */
  private composeFrom(
    task: Task,
    view: EpisodeView,
    now: number,
    action: string,
    best: RealStep,
    stats: TemplateStats,
    place: RealStep | undefined,
  ): {
    best: RealStep;
    real: Step;
    text: string;
    mapping: ReadonlyMap<string, string>;
    back: (NamedState & { changes: (key: string) => boolean }) | undefined;
    source: EpisodeStep;
    flows: boolean;
  } {
    const knowledge = this.knowledge;
    const grammar = knowledge.grammar;
    const parsed = grammar.parse(action);
    const placeless = this.placeKeys(stats).length === 0;
    const source: EpisodeStep = { view: best.episode.view, now: best.t };
    const target: EpisodeStep = { view, now };
    const real = best.episode.trajectory.steps[best.t] as Step;
    // The very task's real episode took this very action: its world is this episode's, as is.
    const mapping =
      best === place || (placeless && sameWorld(best, task, action))
        ? new Map<string, string>()
        : valueMapping(source, real.action, target, action, grammar, knowledge.pageWords);
    let composed = composeNext(source, target, mapping, (key) => keepsLines(stats, key));
    // A field the real step's page repeated from its state (a review of the form) is ours.
    composed = carryFields(
      composed,
      source.view.texts[source.now] as string,
      source.view.texts[source.now + 1] as string,
      view.texts[now] as string,
    );
    // Going back to a state this episode saw, which the state's clause of the action names (a
    // template whose real steps did so lead back): its lines as the episode last saw them.
    const back = place ? undefined : this.namedBack(view, now, parsed.values, stats);
    if (back) composed = backTo(composed, view.texts[back.at] as string, back.changes);
    // A value nobody showed (not this episode, not the task) where the real step's value had
    // been shown: the thing it names is not there, and the answer says nothing of it.
    parsed.values.forEach((value, j) => {
      const theirs = grammar.parse(real.action).values[j];
      if (theirs === undefined || view.origin(value, now) !== 'none') return;
      if (source.view.origin(theirs, source.now) !== 'none')
        composed = withoutMentions(composed, value);
    });
    const state = view.texts[now] as string;
    // Frame lines of a kind the template's real steps never changed (what one holds, when one
    // moves or looks) are this episode's as they were, whatever the composition made of them;
    // where they never lost them either, a composition that lost them has them back.
    const kept = (key: string) => knowledge.isFrame(key) && neverChanges(stats, key);
    composed = backTo(composed, state, kept, (key) => kept(key) && neverDrops(stats, key));
    const text = applyFacts(
      composed,
      factsOf(view.texts.slice(0, now + 1)),
      changedBy(source, mapping, stats),
    );
    const flow = valueFlow(state, text, parsed.values, (key) => knowledge.isFrame(key));
    const flows = text === state || stats.flows.size === 0 || stats.flows.has(flow);
    return { best, real, text, mapping, back, source, flows };
  }

  /**
   * The next state composed from the real step of this template that fits best; on pages with a
   * frame, the best one whose composed answer moves the action's values as real steps of the
   * template did (see `value-flow.ts`), among the {@link FLOW_TRIES} best, where one does.
   */
  private compose(
    task: Task,
    view: EpisodeView,
    now: number,
    action: string,
    candidates: readonly RealStep[],
    stats: TemplateStats,
  ): ExperiencePrediction {
    const knowledge = this.knowledge;
    const grammar = knowledge.grammar;
    const ours = contextFeatures(view, now, action, grammar, knowledge.taskWords);
    const comparable = knowledge.comparable(action);
    const weights = knowledge.weights(comparable.key);
    const ourTotal = totalWeight(ours, weights);
    const similar = knowledge.similarEpisodes(task.instruction, SIMILAR_TASKS);
    const likeness = new Map(similar.map((e, rank) => [e, 1 - rank / SIMILAR_TASKS]));
    // The very task's real episode took this very action from the same place (the lines such
    // actions change, of the page's frame, are as ours): its answer is ours, in its world as is.
    const place = this.samePlace(task, view, now, action, stats);
    const pool = place
      ? []
      : agreeing(comparable.steps, ours, weights, (step) => knowledge.features(step));
    const scored = pool.map((candidate) => {
      const score =
        weightedAgreement(ours, knowledge.features(candidate), weights, {
          ours: ourTotal,
          theirs: knowledge.totalWeight(candidate, comparable.key),
        }) +
        (likeness.get(candidate.episode) ?? 0) * LIKENESS_WEIGHT +
        tieBreak(task, now, candidate);
      return { candidate, score };
    });
    const ranked = place
      ? [place]
      : scored.sort((a, b) => b.score - a.score).map((s) => s.candidate);
    if (ranked.length === 0) ranked.push(candidates[0] as RealStep);
    // Where pages have no frame the template changes (a JSON answer), the very task's real
    // answer to the very action is this episode's answer: always for a lookup (it answers as the
    // thing is, wherever the episode stands), else when the circumstances call for the same kind
    // of outcome.
    const placeless = this.placeKeys(stats).length === 0;
    const first = ranked[0] as RealStep;
    const mine = placeless
      ? knowledge.inWorld(task, action).find((step) => !step.episode.view.invalid[step.t])
      : undefined;
    if (placeless && answersAlike(stats)) {
      // A lookup answers as the thing is: this world's real answer to this very action,
      // whatever else the episode did; else never another record of this world under our id
      // (its contents would stand twice in one world), where another world's record can stand in.
      if (mine) ranked.unshift(mine);
      else {
        const elsewhere = ranked.filter((step) => step.episode.trajectory.task.id !== task.id);
        if (elsewhere.length > 0) ranked.splice(0, ranked.length, ...elsewhere);
      }
    } else if (mine && knowledge.outcomeOf(mine) === knowledge.outcomeOf(first)) {
      ranked.unshift(mine);
    }
    const framed = [...linesByKey(view.texts[now] as string).keys()].some((key) =>
      knowledge.isFrame(key),
    );
    const tries = framed && place === undefined ? FLOW_TRIES : 1;
    let made = this.composeFrom(task, view, now, action, ranked[0] as RealStep, stats, place);
    for (let i = 1; i < Math.min(tries, ranked.length) && !made.flows; i++) {
      const next = this.composeFrom(task, view, now, action, ranked[i] as RealStep, stats, place);
      if (next.flows) made = next;
    }
    const { best, real, text, mapping, back, source } = made;
    const lookedUp = placeless && answersAlike(stats) && sameWorld(best, task, action);
    const distance = lookedUp
      ? // This world's own answer: as unsure as real repeats were to answer the same.
        1 - stats.sameAnswers / stats.repeats
      : sourceDistance(
          view.texts[now] as string,
          action,
          {
            state: source.view.texts[source.now] as string,
            action: real.action,
            sameTask: best.episode.trajectory.task.id === task.id,
          },
          stats,
          grammar,
        );
    const passedOver = ranked.indexOf(best);
    const nextView = extend(view, text, action);
    const nextState: Observation = { text, instruction: task.instruction };
    if (real.observation.actions) {
      nextState.actions =
        real.observation.actions.length === 0
          ? []
          : nextActions(
              real.observation.actions,
              { view: source.view, now: source.now + 1 },
              { view: nextView, now: now + 1 },
              mapping,
              grammar,
              knowledge.admissible,
            );
    }
    const from = `composed from real step ${best.t + 1} of ${best.episode.trajectory.id} ("${real.action}")${
      back ? `, back to where the episode's state ${back.at} was (its "${back.key}" lines)` : ''
    }${
      passedOver > 0
        ? ` (the ${passedOver > 1 ? `${passedOver} better-fitting steps' answers` : "better-fitting step's answer"} moved the action's values as no real step did)`
        : ''
    }${
      mapping.size > 0
        ? `, values swapped: ${[...mapping]
            .slice(0, 4)
            .map(([a, b]) => `${clip(a)} → ${clip(b)}`)
            .join(', ')}`
        : ''
    }`;
    if (!real.terminated) {
      return {
        reasoning: `${from}.`,
        nextState,
        reward: stats.stepReward,
        terminated: false,
        uncertainty: distance,
      };
    }
    const likeASuccess = knowledge.endsLikeASuccess(
      task.instruction,
      endingOf(view, now, action, grammar),
    );
    const unvouched = likeASuccess ? this.unvouched(task, view, now, action, stats, text) : [];
    const p =
      likeASuccess && unvouched.length === 0
        ? knowledge.outcome.probability(
            outcomeFeatures(
              view,
              now,
              action,
              text,
              grammar,
              knowledge.taskWords,
              knowledge.successProfiles(task.instruction),
            ),
          )
        : 0;
    const verdict =
      likeASuccess && unvouched.length === 0 ? knowledge.outcome.verdict(p) : 'failure';
    const unjudged = unvouched.length > 0 || verdict === 'unjudged';
    const { successFrom, failureTo } = knowledge.outcome.verdicts;
    return {
      reasoning: `${from}; the real step ended its episode, so this one ends: ${
        unvouched.length > 0
          ? `unjudged: it ends where no real episode of this task stood ("${clip(unvouched[0] as string)}"), so the buffer vouches for no outcome; scored a failure, and left out of training`
          : !likeASuccess
            ? 'a failure (no real success of a task like it ended with such an action on values in such roles)'
            : verdict === 'success'
              ? `a success: probability ${p.toFixed(2)} (outcome model), at or above ${threshold(successFrom)}, where ≥ 90% of held-out real endings succeeded`
              : verdict === 'failure'
                ? `a failure: probability ${p.toFixed(2)} (outcome model), at or below ${threshold(failureTo)}, where ≥ 90% of held-out real endings failed`
                : `unjudged: probability ${p.toFixed(2)} (outcome model), between the thresholds where held-out real endings were mostly failures (≤ ${threshold(failureTo)}) and mostly successes (≥ ${threshold(successFrom)}); scored a failure, and left out of training`
      }.`,
      nextState,
      reward: verdict === 'success' ? 1 : stats.failureReward,
      terminated: true,
      ...(unjudged && { judged: false }),
      uncertainty: unjudged ? 1 : likeASuccess ? anyWrong(distance, outcomeDoubt(p)) : distance,
    };
  }
}

/**
 * How far a composed step is from the real step it was composed from: 1 − the Jaccard overlap of
 * the two states' words, times the share of our action's values the real action had in the same
 * places, times, for a real step of another task, how often the buffer's real steps of the
 * template answered the same page and action alike in two tasks (Laplace-smoothed: even odds
 * with no such pair; another task's world may answer the same page otherwise). 0 for this task's
 * real transition replayed; 1 when the action's only value was swapped (an id the real step did
 * not look up) or the states share no word.
 */
export function sourceDistance(
  state: string,
  action: string,
  source: { state: string; action: string; sameTask: boolean },
  stats: TemplateStats,
  grammar: ActionGrammar,
): number {
  const ours = grammar.parse(action).values;
  const theirs = grammar.parse(source.action).values;
  const kept = ours.length === 0 ? 1 : ours.filter((v, i) => theirs[i] === v).length / ours.length;
  const world = source.sameTask ? 1 : (stats.sameAcrossTasks + 1) / (stats.acrossTasks + 2);
  return 1 - jaccard(new Set(wordsOf(state)), new Set(wordsOf(source.state))) * kept * world;
}

/**
 * How unsure "nothing changes" is for an action the model does not carry out: the share of the
 * template's unlisted real steps the env did not refuse; 1 for a template the buffer never
 * carried out (what the real env does with it, nobody showed).
 */
function refusalDoubt(stats: TemplateStats | undefined): number {
  if (!stats || stats.steps === 0 || stats.unlisted === 0) return 1;
  return 1 - stats.unlistedRefused / stats.unlisted;
}

/**
 * The steps that agree with ours on the decisive features, the heaviest first (those weighing at
 * least {@link DECISIVE_SHARE} of the heaviest): each narrows the steps to those that have it
 * where we have it and lack it where we lack it, unless none would be left. A decision-tree walk
 * before the weighted vote: that the task's place is named where one stands (or is not) decides
 * whether dropping a thing ends the episode, however many other features a step that ended shares.
 */
function agreeing(
  steps: readonly RealStep[],
  ours: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
  featuresOf: (step: RealStep) => ReadonlySet<string>,
): readonly RealStep[] {
  let heaviest = 0;
  for (const w of weights.values()) heaviest = Math.max(heaviest, w);
  const decisive = [...weights]
    .filter(([, w]) => w >= DECISIVE_SHARE * heaviest)
    .sort((a, b) => b[1] - a[1]);
  const family = (feature: string) => feature.slice(0, feature.indexOf(':') + 1);
  const families = new Map<string, string[]>();
  for (const f of ours) families.set(family(f), [...(families.get(family(f)) ?? []), f]);
  let pool = steps;
  for (const [feature] of decisive) {
    const has = ours.has(feature);
    // Lacking a feature tells only where we have another of its family that such steps show
    // (`li:exits :` for `li:you are`); a previous action none of them followed tells nothing.
    if (!has) {
      const mine = families.get(family(feature)) ?? [];
      if (!pool.some((step) => mine.some((f) => featuresOf(step).has(f)))) continue;
    }
    const kept = pool.filter((step) => featuresOf(step).has(feature) === has);
    if (kept.length > 0) pool = kept;
  }
  return pool;
}

/** True when the template's real steps (at least {@link MIN_REPEATS} with lines of `key`) never changed them. */
function neverChanges(stats: TemplateStats, key: string): boolean {
  const count = stats.lines.get(key);
  return count !== undefined && count.both >= MIN_REPEATS && count.changed === 0;
}

/** True when the template's real steps never lost the state's lines of `key`. */
function neverDrops(stats: TemplateStats, key: string): boolean {
  return stats.lines.get(key)?.dropped === 0;
}

/** True when real episodes repeating the template's actions from other states got the same answers. */
function isLookup(stats: TemplateStats): boolean {
  return stats.repeats >= MIN_REPEATS && stats.sameAnswers / stats.repeats >= SAME_ANSWER_SHARE;
}

/**
 * True when real episodes that repeated the template's actions got the same answers, as far as
 * the buffer shows (a weaker {@link isLookup}: one repeat is evidence enough to prefer this
 * world's own answer to a composition).
 */
function answersAlike(stats: TemplateStats): boolean {
  return stats.repeats > 0 && stats.sameAnswers / stats.repeats >= SAME_ANSWER_SHARE;
}

/** True when `step` is this very task's real episode taking this very action (its world is ours). */
function sameWorld(step: RealStep, task: Task, action: string): boolean {
  const { trajectory } = step.episode;
  return (
    trajectory.task.id === task.id &&
    trajectory.task.instruction === task.instruction &&
    trajectory.steps[step.t]?.action === action
  );
}

/** True when the buffer shows the env refusing such actions when the state does not list them. */
function refused(state: Observation, action: string, stats: TemplateStats | undefined): boolean {
  if (!stats || stats.steps === 0) return true;
  if (!state.actions || isListed(state.actions, action)) return false;
  return stats.unlisted >= MIN_REPEATS && stats.unlistedRefused / stats.unlisted >= 0.5;
}

/** The episode with one more step: `action` leading to `text`. */
function extend(view: EpisodeView, text: string, action: string): EpisodeView {
  return new EpisodeView(
    view.instruction,
    [...view.texts, text],
    [...view.actions, action],
    [...view.invalid, false],
  );
}

/**
 * Which fields of the composed answer the step itself sets, so that this episode's older facts
 * must not undo them: those the real step's episode had shown with another value before, or,
 * where it had not shown them, those real steps of the template mostly set.
 */
function changedBy(
  source: EpisodeStep,
  mapping: ReadonlyMap<string, string>,
  stats: TemplateStats,
): (id: string, field: string, value: unknown) => boolean {
  const before = factsOf(source.view.texts.slice(0, source.now + 1));
  const after = factsOf([source.view.texts[source.now + 1] as string]);
  const inverse = new Map([...mapping].map(([a, b]) => [b, a]));
  return (id, field) => {
    const theirs = inverse.get(id) ?? id;
    const was = before.get(theirs);
    const is = after.get(theirs);
    if (was?.has(field) && is?.has(field))
      return JSON.stringify(was.get(field)) !== JSON.stringify(is.get(field));
    const count = stats.fields.get(field);
    return count !== undefined && count.set * 2 > count.shown;
  };
}

/** A tiny, fixed preference among equally good steps, so ties do not always go the same way. */
function tieBreak(task: Task, now: number, step: RealStep): number {
  return (hashString(`${task.id}#${now}#${step.episode.key}#${step.t}`) / 2 ** 32) * 1e-6;
}

/** A verdict threshold as the reasoning shows it: none where no threshold held. */
function threshold(p: number): string {
  return Number.isFinite(p) ? p.toFixed(2) : 'none';
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
