import { memoize } from '../../core/memo.ts';
import { words } from '../../core/text.ts';
import { type Observation, type Trajectory, transitions } from '../../core/types.ts';
import {
  pageText,
  parseTree,
  subtree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';
import { parseWebAction } from './actions.ts';
import {
  actionTarget,
  EpisodeMemory,
  fieldKey,
  formValues,
  isSubmission,
  type StepEffect,
} from './episode.ts';
import { type EpisodeOutcome, WebRewardModel } from './reward.ts';
import { DEFAULT_TYPING, learnTyping, type TypingEffect } from './typing.ts';
import { oneSegmentApart, originOf, pathKey, segmentsApart } from './urls.ts';

/** A page as a real episode showed it, with the origin it was served from. */
export interface SeenPage {
  observation: Observation;
  origin: string;
}

/** What one real action on one element led to: an edge of the site graph. */
export interface Outcome extends SeenPage {
  /** URL path of the page the action was taken on. */
  from: string;
  /** Words of the target's surroundings (its ancestors' and neighbours' names). */
  context: Set<string>;
  /** Values the form sent (submissions only), sorted by field. */
  form: Array<[string, string]>;
  effect: StepEffect;
}

/** How `stop` leaves the page, as the real episodes showed it. */
interface StopRule {
  keepsText: boolean;
  /** The page's own actions stay listed (the browser env); else `actions` are listed. */
  keepsActions: boolean;
  actions: string[] | undefined;
}

/**
 * What the replay buffer's real web episodes showed: a site graph of page views (by URL path) and
 * of actions on elements (by the page's URL path and the element's role and name, never by ids,
 * which belong to one page's content), the values forms were submitted with and the pages that
 * followed, how typing shows in a field, how `stop` ends an episode, the real episode starts, and
 * the evaluator outcomes the reward model is fit on. Learnt only from observed text and rewards.
 */
export class WebKnowledge {
  /** Real episode starts: the instruction and the first page. */
  readonly starts: Array<{ instruction: string } & SeenPage> = [];
  /** URL path → the distinct pages loaded there (at most {@link VIEWS_PER_PATH}), in order seen. */
  readonly views = new Map<string, SeenPage[]>();
  /** `isParameter`'s answers by path and segment: they depend on the paths seen alone. */
  private readonly parameters = new Map<string, boolean>();
  /** `from path, verb, role 'name'` → what followed, in the order seen. */
  readonly edges = new Map<string, Outcome[]>();
  /** `verb, role 'name'` → what followed, from any page. */
  readonly anywhere = new Map<string, Outcome[]>();
  /** Exact page text (origin removed) and action → the next page. */
  readonly exact = new Map<string, SeenPage>();
  /** Role → action templates the env offered for elements of that role (`click [{id}]` …). */
  readonly roleActions = new Map<string, Set<string>>();
  typing: TypingEffect = DEFAULT_TYPING;
  stop: StopRule = { keepsText: true, keepsActions: false, actions: [] };
  /** The page a new tab shows. */
  blankTab: SeenPage | undefined;
  readonly outcomes: EpisodeOutcome[] = [];
  private rewardModel: WebRewardModel | undefined;

  static fromTrajectories(trajectories: Iterable<Trajectory>): WebKnowledge {
    const knowledge = new WebKnowledge();
    for (const t of trajectories) knowledge.add(t);
    return knowledge;
  }

  /** Learns from one real trajectory (ignored when its pages are not accessibility trees). */
  add(trajectory: Trajectory): void {
    const start = parseTree(trajectory.initial.text);
    if (!start) return;
    const origin = originOf(start.url);
    this.starts.push({
      instruction: trajectory.task.instruction,
      observation: trajectory.initial,
      origin,
    });
    this.view(trajectory.initial, origin);
    const memory = new EpisodeMemory(trajectory.initial);
    const visited = [pageText(start)];
    for (const [t, step] of transitions(trajectory).entries()) {
      const raw = trajectory.steps[t];
      const action = parseWebAction(step.action);
      const tree = parseTree(step.state.text);
      if (raw?.info?.invalidAction || !action || !tree) {
        if (raw) memory.apply(raw);
        continue;
      }
      this.learnActions(step.state, tree);
      const target = actionTarget(action, step.state);
      const key = exactKey(step.state.text, origin, step.action);
      if (!this.exact.has(key)) this.exact.set(key, { observation: step.nextState, origin });
      const typing = learnTyping(step.state, step.action, step.nextState);
      if (typing && this.typing.source === 'default') this.typing = typing;
      if (action.kind === 'new_tab' && !this.blankTab)
        this.blankTab = { observation: step.nextState, origin };
      if (action.kind === 'stop') {
        this.stop = {
          keepsText: step.nextState.text === step.state.text,
          keepsActions:
            JSON.stringify(step.nextState.actions) === JSON.stringify(step.state.actions),
          actions: step.nextState.actions,
        };
        this.outcomes.push({
          instruction: trajectory.task.instruction,
          answer: action.answer,
          finalText: finalText(tree),
          visitedText: visited.join('\n'),
          pressed: [...memory.pressed],
          entered: [...memory.entered],
          reward: step.reward,
        });
      }
      const submits = isSubmission(action, target, memory.typed.size > 0);
      const form = submits ? formValues(memory.typed, action, target) : [];
      const effect = memory.apply(raw as NonNullable<typeof raw>);
      const next = parseTree(step.nextState.text);
      if (next) visited.push(pageText(next));
      if (effect === 'navigate' || effect === 'reload') this.view(step.nextState, origin);
      const verb = edgeVerb(action.kind, submits);
      if (!target || !verb) continue;
      const outcome: Outcome = {
        observation: step.nextState,
        origin,
        from: pathKey(tree.url),
        context: contextWords(tree, target),
        form,
        effect,
      };
      push(this.edges, edgeKey(outcome.from, verb, target), outcome);
      push(this.anywhere, edgeKey('*', verb, target), outcome);
      if (submits) {
        push(this.edges, formKey(outcome.from, form), outcome);
        push(this.anywhere, formKey('*', form), outcome);
      }
    }
    this.rewardModel = undefined;
  }

  /** The next page a real episode showed for exactly this page and action. */
  exactly(stateText: string, origin: string, action: string): SeenPage | undefined {
    return this.exact.get(exactKey(stateText, origin, action));
  }

  /** Outcomes of `verb` on an element like `target` on the page at `from` (`*`: any page). */
  edgeOutcomes(from: string, verb: string, target: TreeNode): Outcome[] {
    return (from === '*' ? this.anywhere : this.edges).get(edgeKey(from, verb, target)) ?? [];
  }

  /** Submissions of a form with the same fields (by whichever control), from `from` (`*`: any). */
  formOutcomes(from: string, form: ReadonlyArray<[string, string]>): Outcome[] {
    return (from === '*' ? this.anywhere : this.edges).get(formKey(from, form)) ?? [];
  }

  /**
   * A page loaded at a URL path; else a seen page whose path differs in one segment only
   * (`/f/jazz` for `/f/climbing`), with that segment's `[seen, wanted]` pair. Among several, the
   * one that shares most lines with `like` (the current page: the same login, the same layout).
   */
  viewAt(
    url: string,
    like?: string,
  ):
    | { page: SeenPage; how: 'path' }
    | { page: SeenPage; how: 'shape'; swaps: Array<[string, string]> }
    | undefined {
    const key = pathKey(url);
    const pages = this.views.get(key);
    if (pages) return { page: mostAlike(pages, like), how: 'path' };
    let best: { page: SeenPage; how: 'shape'; swaps: Array<[string, string]> } | undefined;
    let bestScore = Number.NEGATIVE_INFINITY;
    const query = (path: string) => path.replace(/^[^?]*/, '');
    for (const [seen, views] of this.views) {
      // Differing segments must all be parameters (a forum, a post number), at most two.
      const swaps = segmentsApart(seen, key);
      if (!swaps || swaps.length === 0 || swaps.length > 2) continue;
      if (!swaps.every(([from]) => this.isParameter(seen, from))) continue;
      const page = mostAlike(views, like);
      // The same query first (`/user/b?sort=top` from `/user/a?sort=top`, not from `/user/a`),
      // then the fewest segments rewritten.
      const score =
        (query(seen) === query(key) ? 2 : 0) -
        (swaps.length - 1) +
        (like === undefined ? 0 : overlap(page.observation.text, like));
      if (score > bestScore) {
        best = { page, how: 'shape', swaps };
        bestScore = score;
      }
    }
    return best;
  }

  /**
   * Whether segment `value` of path `seen` is a parameter (a forum name, a post number): at
   * least one other seen path differs from `seen` in that segment alone, and they share another
   * (`/f/jazz` and `/f/cooking` share `f`; `/search` and `/submit` share nothing: other pages).
   */
  private isParameter(seen: string, value: string): boolean {
    const key = `${seen}\u0000${value}`;
    let known = this.parameters.get(key);
    if (known === undefined) {
      known = this.differsAlone(seen, value);
      this.parameters.set(key, known);
    }
    return known;
  }

  private differsAlone(seen: string, value: string): boolean {
    if (value === '') return false;
    if (seen.replace(/\?.*$/, '').split('/').filter(Boolean).length < 2) return false;
    for (const other of this.views.keys()) {
      const swap = oneSegmentApart(other, seen)?.[0];
      if (swap && swap[1] === value && swap[0] !== '') return true;
    }
    return false;
  }

  /** A seen page whose title or main heading is `name` (where a link of that name leads). */
  pageTitled(name: string): SeenPage | undefined {
    const wanted = name.trim().toLowerCase();
    if (wanted.length === 0) return undefined;
    for (const [view] of this.views.values()) {
      if (!view) continue;
      const tree = parseTree(view.observation.text);
      const heading = tree?.nodes.find((n) => n.role === 'heading')?.name;
      const titles = [tree?.tabs.find((t) => t.current)?.title, tree?.nodes[0]?.name, heading];
      if (titles.some((t) => t?.trim().toLowerCase() === wanted)) return view;
    }
    return undefined;
  }

  /** The reward model, fit on the evaluator outcomes of the real episodes that ended by `stop`. */
  rewards(): WebRewardModel {
    this.rewardModel ??= new WebRewardModel(this.outcomes);
    return this.rewardModel;
  }

  private view(observation: Observation, origin: string): void {
    const key = pathKey(parseTree(observation.text)?.url);
    if (!key) return;
    const pages = this.views.get(key) ?? [];
    if (
      pages.length >= VIEWS_PER_PATH ||
      pages.some((p) => p.observation.text === observation.text)
    )
      return;
    pages.push({ observation, origin });
    // A new path may make a segment of another a parameter.
    if (!this.views.has(key)) this.parameters.clear();
    this.views.set(key, pages);
  }

  /** Which actions the env lists for elements of each role. */
  private learnActions(state: Observation, tree: WebTree): void {
    const roles = new Map(tree.nodes.map((n) => [n.id, n.role]));
    for (const action of state.actions ?? []) {
      const id = /^(?:click|hover|type) ?\[([^\]\s]+)\]/.exec(action)?.[1];
      const role = id === undefined ? undefined : roles.get(id);
      if (id === undefined || role === undefined) continue;
      const templates = this.roleActions.get(role) ?? new Set<string>();
      templates.add(action.replace(`[${id}]`, '[{id}]'));
      this.roleActions.set(role, templates);
    }
  }
}

/** Distinct pages kept per URL path (logged in or not, before and after changes …). */
const VIEWS_PER_PATH = 6;

/** The page of `pages` sharing most lines with `like` (the first when `like` is undefined). */
export function mostAlike<T extends SeenPage>(pages: readonly T[], like: string | undefined): T {
  let best = pages[0] as T;
  if (like === undefined || pages.length < 2) return best;
  let bestScore = -1;
  for (const page of pages) {
    const score = overlap(page.observation.text, like);
    if (score > bestScore) {
      best = page;
      bestScore = score;
    }
  }
  return best;
}

/** Share of lines two pages have in common, ids and indentation ignored (Jaccard). */
export function overlap(a: string, b: string): number {
  const x = linesOf(a);
  const y = linesOf(b);
  let shared = 0;
  for (const l of x) if (y.has(l)) shared++;
  return shared / Math.max(1, x.size + y.size - shared);
}

/** A page's lines without indentation and element ids (the buffer's pages recur: remembered). */
const linesOf = memoize(
  (text: string): ReadonlySet<string> =>
    new Set(text.split('\n').map((l) => l.replace(/^\t*(\[[^\]]*\] )?/, ''))),
  5_000,
);

/** The verb of a site-graph edge, or undefined for actions that do not act on an element. */
export function edgeVerb(kind: string, submits: boolean): string | undefined {
  if (submits) return 'submit';
  return kind === 'click' || kind === 'hover' || kind === 'press' ? kind : undefined;
}

function edgeKey(from: string, verb: string, target: TreeNode): string {
  return `${from}\u0000${verb}\u0000${fieldKey(target)}`;
}

function formKey(from: string, form: ReadonlyArray<[string, string]>): string {
  return `${from}\u0000form\u0000${form.map(([field]) => field).join('\u0000')}`;
}

function exactKey(text: string, origin: string, action: string): string {
  return `${origin ? text.replaceAll(origin, '') : text}\u0000${action.trim()}`;
}

/** The final page as the reward model reads it: its URL path and its names. */
export function finalText(tree: WebTree): string {
  return `${pathKey(tree.url)}\n${pageText(tree)}`;
}

/**
 * Words near an element: its ancestors' names and the names of the three elements before and
 * after it. Tells apart elements of the same role and name (the `Reply` link of each comment).
 */
export function contextWords(tree: WebTree, target: TreeNode): Set<string> {
  const at = tree.nodes.findIndex((n) => n.id === target.id);
  if (at < 0) return new Set();
  const names: string[] = [];
  let depth = target.depth;
  for (let i = at - 1; i >= 0 && depth > 0; i--) {
    const node = tree.nodes[i] as TreeNode;
    if (node.depth < depth) {
      names.push(node.name ?? '');
      depth = node.depth;
    }
  }
  const [, end] = subtree(tree.nodes, at);
  for (const n of [...tree.nodes.slice(Math.max(0, at - 3), at), ...tree.nodes.slice(end, end + 3)])
    names.push(n.name ?? '');
  return new Set(words(names.join(' ')));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
