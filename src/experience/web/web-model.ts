import { ratio } from 'fuzzball';
import { contentWords } from '../../core/text.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import {
  pageText,
  pageTitle,
  parseTree,
  prop,
  renderTree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import {
  type ExperienceModel,
  ExperienceModelError,
  type ExperiencePrediction,
  type ExperienceRequest,
} from '../experience-model.ts';
import { parseWebAction, type WebAction } from './actions.ts';
import {
  actionTarget,
  EpisodeMemory,
  fieldKey,
  formValues,
  isSubmission,
  submissionKey,
} from './episode.ts';
import {
  contextWords,
  edgeVerb,
  finalText,
  type Outcome,
  overlap,
  type SeenPage,
  type WebKnowledge,
} from './knowledge.ts';
import { composeActions } from './page-actions.ts';
import { applyTyping } from './typing.ts';
import { moveOrigin, originOf, pathKey } from './urls.ts';

type Prediction = Omit<ExperiencePrediction, 'nextState'> & {
  nextState: Omit<Observation, 'instruction'>;
};

/** What every rule sees: the request, its page parsed, and the episode replayed. */
interface Context {
  task: Task;
  history: readonly Step[];
  state: Observation;
  tree: WebTree;
  memory: EpisodeMemory;
  origin: string;
}

const TEXT_FIELDS = new Set(['textbox', 'searchbox', 'combobox', 'textarea', 'spinbutton']);

/**
 * The LLM-free experience model for web envs whose observations are WebArena accessibility
 * trees. It predicts from what the buffer's real episodes showed ({@link WebKnowledge}): a page
 * and action seen exactly are replayed; a click follows the site graph by the page's URL path and
 * the element's role and name (its surroundings break ties), never by element ids; typing shows
 * the text in the field as real typing did; a submitted form leads to the page the buffer showed
 * for the same form with the most alike values, this episode's values written in; `goto`,
 * `go_back`/`go_forward` and tabs follow the episode's own history. Within an episode a page
 * revisited shows what it showed when last loaded (a page changed by a submission stays changed),
 * and an action on an element the page does not show changes nothing, as in the real env.
 * `stop [answer]` is scored by a reward model fit on the real episodes' evaluator outcomes.
 * It never reads `task.spec` (the task's reference answers): only the instruction.
 * Deterministic; `reasoning` says which seen page it reused and why.
 *
 * Its uncertainty: 0 for a page and action seen exactly, a page real episodes loaded at the
 * link's or `goto`'s path, this episode's own pages (revisits, history, tabs, a form it sent)
 * and the env's rules (an element the page lacks is ignored); for a click following the site
 * graph, 1 − the Jaccard overlap of the element's surroundings with the real click's; for a form
 * sent with other values than the real one's, 1 − their agreement; 1 for a page composed from
 * another path's or a link's title, and for any action no real episode showed changing a page;
 * `stop`, the reward model's doubt.
 */
export class WebExperienceModel implements ExperienceModel {
  readonly id = 'llm-free/web';
  /** It learnt the buffer's real episodes beforehand; per-step demonstrations tell it nothing. */
  readonly readsDemonstrations = false;

  constructor(private readonly knowledge: WebKnowledge) {}

  async initial(task: Task, demonstrations: readonly RetrievedTransition[]): Promise<Observation> {
    const start =
      this.startFor(task) ??
      demonstrations.find((d) => d.t === 0 && parseTree(d.state.text))?.state;
    if (!start)
      throw new ExperienceModelError(
        `no real web episode start to begin "${task.instruction}" from: import real episodes of ${task.env} into the buffer first.`,
      );
    return { ...start, instruction: task.instruction };
  }

  async predict(request: ExperienceRequest): Promise<ExperiencePrediction> {
    const out = this.next(request);
    return { ...out, nextState: { ...out.nextState, instruction: request.task.instruction } };
  }

  /** The first page of the real episode whose instruction is most like the task's. */
  private startFor(task: Task): Observation | undefined {
    const mine = new Set(contentWords(task.instruction));
    let best: SeenPage | undefined;
    let bestScore = -1;
    for (const start of this.knowledge.starts) {
      if (start.instruction === task.instruction) return start.observation;
      const theirs = contentWords(start.instruction);
      const score = theirs.filter((w) => mine.has(w)).length / Math.max(1, theirs.length);
      if (score > bestScore) {
        best = start;
        bestScore = score;
      }
    }
    return best?.observation;
  }

  private next(request: ExperienceRequest): Prediction {
    const { task, history, state } = request;
    const action = parseWebAction(request.action);
    const tree = parseTree(state.text);
    if (!action)
      return unchanged(state, `"${request.action}" follows no WebArena action syntax.`, 0);
    if (!tree) return unchanged(state, 'the state is not an accessibility-tree page.', 1);
    const target = actionTarget(action, state);
    if ('id' in action && !target)
      return unchanged(state, `the page shows no element [${action.id}]; the env ignores it.`, 0);
    const start = history.length === 0 ? state : (request.initial ?? this.startFor(task) ?? state);
    const context: Context = {
      task,
      history,
      state,
      tree,
      memory: EpisodeMemory.replay(start, history),
      origin: originOf(tree.url),
    };
    switch (action.kind) {
      case 'stop':
        return this.stop(context, action.answer);
      case 'go_back':
      case 'go_forward':
        return this.travel(context, action.kind);
      case 'new_tab':
      case 'tab_focus':
      case 'close_tab':
        return this.tabs(context, action);
      case 'goto':
        return this.goto(context, action.url);
      default:
    }
    if (isSubmission(action, target, context.memory.typed.size > 0) && target)
      return this.submit(context, action, target, request.action);
    const exact = this.knowledge.exactly(state.text, context.origin, request.action);
    if (exact) {
      const on = target ? ` on ${fieldKey(target)}` : '';
      return this.land(context, exact, `a real episode took this very action${on} on this page`, 0);
    }
    if (action.kind === 'type' && target) return this.type(context, action.text, target);
    if ((action.kind === 'click' || action.kind === 'hover') && target)
      return this.follow(context, action.kind, target);
    return unchanged(
      state,
      `no real episode showed "${request.action}" changing this page; it stays as it is.`,
      1,
    );
  }

  /** `stop [answer]`: the episode ends; the reward model scores the answer and the final page. */
  private stop({ state, tree, history, task, memory }: Context, answer: string): Prediction {
    const visited = [
      ...history.flatMap((s) => {
        const t = parseTree(s.observation.text);
        return t ? [pageText(t)] : [];
      }),
      pageText(tree),
    ];
    const { reward, why, doubt } = this.knowledge.rewards().predict({
      instruction: task.instruction,
      answer,
      finalText: finalText(tree),
      visitedText: visited.join('\n'),
      pressed: memory.pressed,
      entered: memory.entered,
    });
    const { keepsActions } = this.knowledge.stop;
    const actions = keepsActions ? state.actions : this.knowledge.stop.actions;
    return {
      reasoning: `stop ends the episode; ${why} gives reward ${reward}.`,
      nextState: { text: state.text, ...(actions !== undefined && { actions: [...actions] }) },
      reward,
      terminated: true,
      uncertainty: doubt,
    };
  }

  /** Typing without Enter: the field shows the text (the page's ids stay). */
  private type({ state, tree }: Context, text: string, target: TreeNode): Prediction {
    if (!TEXT_FIELDS.has(target.role))
      return unchanged(
        state,
        `${fieldKey(target)} is not a text field; typing changes nothing.`,
        0,
      );
    const typed = applyTyping(tree, target.id, text, this.knowledge.typing);
    return step(
      `typing into ${fieldKey(target)} shows "${text}" in it, as typing did in ${this.knowledge.typing.source === 'buffer' ? 'the real episodes' : "WebArena's trees (no typing seen in the buffer)"}.`,
      {
        text: renderTree(typed),
        ...(state.actions && {
          actions: composeActions(typed, state.actions, state.actions, this.knowledge.roleActions),
        }),
      },
      0,
    );
  }

  /** A form sent: the page it led to in this episode, else the buffer's for the most alike values. */
  private submit(context: Context, action: WebAction, target: TreeNode, raw: string): Prediction {
    const { memory, tree, state, origin } = context;
    const from = pathKey(tree.url);
    const form = formValues(memory.typed, action, target);
    const before = memory.submissions.get(submissionKey(from, target, memory.typed, action));
    if (before)
      return this.land(
        context,
        { observation: before, origin },
        'this episode sent this form so',
        0,
      );
    const exact = this.knowledge.exactly(state.text, origin, raw);
    if (exact)
      return this.land(context, exact, 'a real episode sent this very form from this page', 0);
    const candidates = new Set([
      ...this.knowledge.edgeOutcomes(from, 'submit', target),
      ...this.knowledge.formOutcomes(from, form),
      ...this.knowledge.edgeOutcomes('*', 'submit', target),
      ...this.knowledge.formOutcomes('*', form),
    ]);
    let best: Outcome | undefined;
    let bestScore = -1;
    for (const c of candidates) {
      // The page after matters too: the same login and layout as this one.
      const score =
        formSimilarity(form, c.form) +
        0.5 * overlap(c.observation.text, state.text) +
        (c.from === from ? 0.01 : 0);
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    if (!best)
      return unchanged(
        state,
        `no real episode submitted a form through ${fieldKey(target)}; the page stays as it is.`,
        1,
      );
    const written = substituteValues(best, form);
    // Per field of ours, how alike the real form's value was (1 for the same).
    const agreement = form.length === 0 ? 1 : formSimilarity(form, best.form) / form.length;
    return this.land(
      context,
      written,
      `a real episode sent ${describeForm(best.form)} through ${fieldKey(target)} (the most alike values to ${describeForm(form)}); its page is shown with this episode's values written in`,
      1 - agreement,
      true,
    );
  }

  /** A click or hover: the site graph's edge for this element, by path, role and name. */
  private follow(context: Context, kind: 'click' | 'hover', target: TreeNode): Prediction {
    const { tree, state } = context;
    const from = pathKey(tree.url);
    // A link shows where it leads (`url:`): the page at that path, where the buffer saw one.
    const href = kind === 'click' ? prop(target, 'url') : undefined;
    const seenAt = href === undefined ? undefined : this.knowledge.viewAt(href, state.text);
    if (href !== undefined && seenAt?.how === 'path')
      return this.land(
        context,
        retitle(seenAt.page, target, tree),
        `${fieldKey(target)} leads to ${pathKey(href)}, a page real episodes loaded`,
        0,
      );
    const verb = edgeVerb(kind, false) as string;
    const here = this.knowledge.edgeOutcomes(from, verb, target);
    const anywhere = here.length > 0 ? here : this.knowledge.edgeOutcomes('*', verb, target);
    const candidates =
      href === undefined
        ? anywhere
        : anywhere.filter((c) => pathKey(parseTree(c.observation.text)?.url) === pathKey(href));
    if (candidates.length > 0) {
      const near = contextWords(tree, target);
      let best = candidates[0] as (typeof candidates)[number];
      let bestScore = -1;
      let alike = 0;
      for (const c of candidates) {
        let shared = 0;
        for (const w of near) if (c.context.has(w)) shared++;
        const surroundings = shared / Math.max(1, near.size + c.context.size - shared);
        const score = surroundings + 0.5 * overlap(c.observation.text, state.text);
        if (score > bestScore) {
          best = c;
          bestScore = score;
          alike = near.size === 0 && c.context.size === 0 ? 1 : surroundings;
        }
      }
      // As sure as the element stands where the real click's did (its ancestors and neighbours).
      const uncertainty = 1 - alike;
      const where = here.length > 0 ? 'on this page' : 'on another page';
      if (best.effect === 'in-page' || best.effect === 'none')
        return this.patch(
          context,
          target,
          best,
          `${kind} on ${fieldKey(target)} ${where}`,
          uncertainty,
        );
      // An action that reloaded the page it was taken on (a vote) does so here too.
      const reloads =
        here.length === 0 &&
        pathOnly(best.from) === pathOnly(pathKey(parseTree(best.observation.text)?.url));
      return this.land(
        context,
        reloads && tree.url ? atUrl(best, tree.url) : best,
        `a real episode's ${kind} on ${fieldKey(target)} ${where} led to ${pathKey(parseTree(best.observation.text)?.url)}`,
        uncertainty,
      );
    }
    if (seenAt?.how === 'shape' && href !== undefined)
      return this.land(
        context,
        atUrl(retitle(writeSegments(seenAt.page, seenAt.swaps), target, tree), href),
        `no real episode loaded ${pathKey(href)}; composed from the seen page ${pathKey(parseTree(seenAt.page.observation.text)?.url)}, ${describeSwaps(seenAt.swaps)}`,
        1,
      );
    const titled =
      kind === 'click' && target.role === 'link' && this.knowledge.pageTitled(target.name ?? '');
    if (titled)
      return this.land(
        context,
        titled,
        `no real episode clicked ${fieldKey(target)}; a seen page is titled so`,
        1,
      );
    return unchanged(
      state,
      `no real episode ${kind}ed ${fieldKey(target)}; the page stays as it is.`,
      1,
    );
  }

  /** An in-page change seen elsewhere (a checkbox, a menu): the target takes its new look. */
  private patch(
    { state, tree }: Context,
    target: TreeNode,
    seen: SeenPage,
    what: string,
    uncertainty: number,
  ): Prediction {
    const after = parseTree(seen.observation.text)?.nodes.find(
      (n) => n.role === target.role && n.name === target.name,
    );
    if (!after)
      return unchanged(state, `${what} changed nothing in the real episodes.`, uncertainty);
    const nodes = tree.nodes.map((n) => (n.id === target.id ? { ...n, props: after.props } : n));
    const changed = { ...tree, nodes };
    return step(
      `${what} changed the element in place in a real episode; so here.`,
      {
        text: renderTree(changed),
        ...(state.actions && { actions: [...state.actions] }),
      },
      uncertainty,
    );
  }

  /** `goto [url]`: the page as last loaded in this episode, else as the buffer first showed it. */
  private goto(context: Context, url: string): Prediction {
    const loaded = context.memory.loadedAt(url);
    if (loaded)
      return this.show(
        context,
        { observation: loaded, origin: context.origin },
        'goto returns to a page of this episode, as it was last loaded',
        0,
      );
    const seen = this.knowledge.viewAt(url, context.state.text);
    if (seen?.how === 'path')
      return this.show(
        context,
        seen.page,
        'goto loads a page real episodes loaded at this path',
        0,
      );
    if (seen?.how === 'shape')
      return this.show(
        context,
        atUrl(writeSegments(seen.page, seen.swaps), url),
        `goto: composed from the seen page of the same shape, ${describeSwaps(seen.swaps)}`,
        1,
      );
    return unchanged(context.state, `no real episode loaded ${pathKey(url)}; the page stays.`, 1);
  }

  /** `go_back` / `go_forward` within the current tab's history in this episode. */
  private travel(context: Context, kind: 'go_back' | 'go_forward'): Prediction {
    const { memory, state } = context;
    const tab = memory.tab;
    const to = tab.index + (kind === 'go_back' ? -1 : 1);
    const entry = tab.entries[to];
    if (!entry) return unchanged(state, `${kind}: no page that way in this tab's history.`, 0);
    const url = parseTree(entry.text)?.url;
    const page = (url !== undefined && memory.loadedAt(url)) || entry;
    return this.show(
      context,
      { observation: page, origin: context.origin },
      `${kind} shows the tab's ${kind === 'go_back' ? 'previous' : 'next'} page as this episode last loaded it`,
      0,
    );
  }

  /** Tab actions: the episode's tabs, their pages as last shown. */
  private tabs(context: Context, action: WebAction): Prediction {
    const { memory, state, tree } = context;
    const pages = memory.tabs.map((t) => t.entries[t.index] as Observation);
    let current: number;
    let shown: Observation;
    let why: string;
    if (action.kind === 'new_tab') {
      shown = this.knowledge.blankTab?.observation ?? BLANK_TAB;
      pages.push(shown);
      current = pages.length - 1;
      why = 'new_tab opens a blank tab and focuses it';
    } else if (action.kind === 'tab_focus') {
      if (action.index >= pages.length || action.index === memory.current)
        return unchanged(state, `tab_focus: no other tab ${action.index}.`, 0);
      current = action.index;
      shown = pages[current] as Observation;
      why = `tab_focus shows tab ${current} as it was last shown`;
    } else {
      if (pages.length < 2) return unchanged(state, 'close_tab: the last tab stays open.', 0);
      pages.splice(memory.current, 1);
      current = pages.length - 1;
      shown = pages[current] as Observation;
      why = 'close_tab closes this tab and shows the last one';
    }
    const page = parseTree(shown.text);
    if (!page) return unchanged(state, `${why}, but that page is not a tree.`, 1);
    const titled = pages.map((p, i) => ({
      title: pageTitle(parseTree(p.text) ?? page),
      current: i === current,
    }));
    const text = renderTree({ ...page, tabs: titled, tabLayout: tree.tabLayout });
    return step(
      `${why}.`,
      {
        text,
        ...(state.actions && {
          actions: composeActions(
            page,
            shown.actions ?? [],
            state.actions,
            this.knowledge.roleActions,
          ),
        }),
      },
      0,
    );
  }

  /**
   * A page reached by navigation: shown as this episode last loaded it when it is another page the
   * episode saw (a revisit; never for a submission, whose answer is new), else as seen.
   */
  private land(
    context: Context,
    seen: SeenPage,
    why: string,
    uncertainty: number,
    submission = false,
  ): Prediction {
    const url = parseTree(seen.observation.text)?.url;
    const key = pathKey(url);
    // The same page again (a vote, a form sent back to it) keeps the title it had; another
    // query of it (a sort) may retitle it.
    if (key === pathKey(context.tree.url)) seen = keepTitle(seen, context.tree);
    const loaded = context.memory.loaded.get(key);
    if (!submission && loaded && key !== pathKey(context.tree.url))
      return this.show(
        context,
        { observation: loaded, origin: context.origin },
        `${why}; this episode loaded that page before, so it shows it as it was then`,
        uncertainty,
      );
    return this.show(context, seen, why, uncertainty);
  }

  /** A seen page in the current tab: this run's origin, this episode's other tabs. */
  private show(
    { tree, state, origin }: Context,
    seen: SeenPage,
    why: string,
    uncertainty: number,
  ): Prediction {
    const text = moveOrigin(seen.observation.text, seen.origin, origin);
    const page = parseTree(text);
    if (!page) return unchanged(state, `${why}, but that page is not a tree.`, 1);
    const tabs = tree.tabs.map((t) => (t.current ? { ...t, title: pageTitle(page) } : t));
    const headed = renderTree({
      ...page,
      tabs: tabs.length > 0 ? tabs : page.tabs,
      tabLayout: tree.tabLayout,
    });
    const seenActions = seen.observation.actions?.map((a) => moveOrigin(a, seen.origin, origin));
    return step(
      `${why}.`,
      {
        text: headed,
        ...(seenActions && {
          actions: composeActions(page, seenActions, seenActions, this.knowledge.roleActions),
        }),
      },
      uncertainty,
    );
  }
}

/** What a new tab shows when the buffer never opened one: an empty page. */
const BLANK_TAB: Observation = {
  text: "Tab 0 (current): \nURL: about:blank\n\n[1] RootWebArea '' focused: True",
  instruction: '',
};

function step(
  reasoning: string,
  nextState: Omit<Observation, 'instruction'>,
  uncertainty: number,
): Prediction {
  return { reasoning, nextState, reward: 0, terminated: false, uncertainty };
}

/** The page as it is: by the env's rules (0), or a guess where no real episode showed more. */
function unchanged(state: Observation, why: string, uncertainty: number): Prediction {
  return step(
    `${why} The page stays as it is.`,
    {
      text: state.text,
      ...(state.actions && { actions: [...state.actions] }),
    },
    uncertainty,
  );
}

/** How alike two forms' values are: per field, 1 for equal values, else shared words and letters. */
function formSimilarity(
  a: ReadonlyArray<[string, string]>,
  b: ReadonlyArray<[string, string]>,
): number {
  const theirs = new Map(b);
  let score = 0;
  for (const [field, value] of a) {
    const other = theirs.get(field);
    if (other === undefined) continue;
    if (other === value) {
      score += 1;
      continue;
    }
    const mine = new Set(contentWords(value));
    const words = contentWords(other);
    const shared = words.filter((w) => mine.has(w)).length;
    score +=
      0.5 * (shared / Math.max(1, mine.size + words.length - shared)) +
      0.2 * (ratio(value, other) / 100);
  }
  return score;
}

function describeForm(form: ReadonlyArray<[string, string]>): string {
  return form.map(([field, value]) => `${field} = "${value}"`).join(', ') || 'no values';
}

/** A seen page with a form's seen values replaced by ours (in names, titles and the URL). */
function substituteValues(
  seen: SeenPage & { form: Array<[string, string]> },
  form: ReadonlyArray<[string, string]>,
): SeenPage {
  const tree = parseTree(seen.observation.text);
  if (!tree) return seen;
  const pairs = form
    .map(([field, value]) => [seen.form.find(([f]) => f === field)?.[1], value] as const)
    .filter(
      (p): p is readonly [string, string] =>
        p[0] !== undefined && p[0] !== p[1] && p[0].length >= 2,
    );
  if (pairs.length === 0) return seen;
  // A value shown whole (a field, a posted comment) is swapped anywhere; inside longer text only
  // in the page's title and headings ("Search: pasta"), or where it is an identifier (has a digit
  // or an underscore: "#000000754", "by gravel_otter"): a result "Best pasta sauce" stays.
  const whole = (text: string) => pairs.find(([from]) => from === text)?.[1] ?? text;
  const swap = (text: string) => pairs.reduce((t, [from, to]) => t.replaceAll(from, to), text);
  const identifiers = pairs.filter(([from]) => /[\d_]/.test(from));
  const swapIds = (text: string) =>
    identifiers.reduce(
      (t, [from, to]) => t.replace(new RegExp(`(?<![\\w])${escapeRegExp(from)}(?![\\w])`, 'g'), to),
      whole(text),
    );
  const TITLES = new Set(['RootWebArea', 'heading']);
  // Forms send values in the query; keep the seen URL's spelling of spaces (`+` or `%20`).
  const encode = (value: string) => {
    const encoded = encodeURIComponent(value);
    return /\+/.test(seen.observation.text) ? encoded.replaceAll('%20', '+') : encoded;
  };
  // In URLs a value is a whole path segment or a whole query value.
  const swapUrl = (url: string) =>
    pairs.reduce(
      (u, [from, to]) =>
        u.replace(
          new RegExp(`([/=])${escapeRegExp(encode(from))}(?=[/?&#]|$)`, 'g'),
          (_, lead: string) => `${lead}${encode(to)}`,
        ),
      url,
    );
  const written: WebTree = {
    ...tree,
    url: tree.url === undefined ? undefined : swapUrl(tree.url),
    tabs: tree.tabs.map((t) => ({ ...t, title: swap(t.title) })),
    nodes: tree.nodes.map((n) => ({
      ...n,
      name: n.name === undefined ? undefined : TITLES.has(n.role) ? swap(n.name) : swapIds(n.name),
      props: n.props.map(([k, v]) => [k, k === 'url' ? swapUrl(v) : whole(v)] as [string, string]),
    })),
  };
  return { ...seen, observation: { ...seen.observation, text: renderTree(written) } };
}

/**
 * A seen page moved to a path one segment apart: the segment rewritten in the URL and in links'
 * URLs, and (for a word, not a number) in names (`f/jazz — Forum` → `f/climbing — Forum`).
 */
function writeSegment(seen: SeenPage, [from, to]: [string, string]): SeenPage {
  const tree = parseTree(seen.observation.text);
  if (!tree) return seen;
  const inUrl = (url: string) =>
    url.replace(new RegExp(`/${escapeRegExp(from)}(?=[/?#]|$)`, 'g'), `/${to}`);
  const word = new RegExp(`\\b${escapeRegExp(from)}\\b`, 'g');
  const inName = (name: string) => (/^\d+$/.test(from) ? name : name.replace(word, to));
  const written: WebTree = {
    ...tree,
    url: tree.url === undefined ? undefined : inUrl(tree.url),
    tabs: tree.tabs.map((t) => ({ ...t, title: inName(t.title) })),
    nodes: tree.nodes.map((n) => ({
      ...n,
      name: n.name === undefined ? undefined : inName(n.name),
      props: n.props.map(([k, v]) => [k, k === 'url' ? inUrl(v) : v] as [string, string]),
    })),
  };
  return { ...seen, observation: { ...seen.observation, text: renderTree(written) } };
}

/**
 * A composed page at the URL asked for: the seen page's URL differed in a segment (rewritten)
 * and perhaps in the query (`?sort=top`), which the agent reads to know where it is.
 */
function atUrl(seen: SeenPage, url: string): SeenPage {
  const tree = parseTree(seen.observation.text);
  if (!tree?.url || pathKey(tree.url) === pathKey(url)) return seen;
  const wanted = new URL(url, tree.url);
  const moved = `${new URL(tree.url).origin}${wanted.pathname}${wanted.search}`;
  return {
    ...seen,
    observation: { ...seen.observation, text: renderTree({ ...tree, url: moved }) },
  };
}

/**
 * A page reached through a link whose name this episode wrote in (a result retitled after an
 * unseen search): the seen page's heading, which the link stood for where the buffer saw it, is
 * written as the link's name — in titles and headings — so the page is the one the agent chose.
 * Only when the heading is nowhere on the page of the link (else the link is another way to a
 * page that page names, e.g. "Comments") and the name is a title of several words.
 */
function retitle(seen: SeenPage, link: TreeNode, from: WebTree): SeenPage {
  const name = link.name?.trim() ?? '';
  if (link.role !== 'link' || name.split(/\s+/).length < 3) return seen;
  const tree = parseTree(seen.observation.text);
  const heading = tree?.nodes.find((n) => n.role === 'heading' && n.name)?.name;
  if (!tree || !heading || heading === name) return seen;
  if (from.nodes.some((n) => n.name?.includes(heading))) return seen;
  return writeTitle(seen, tree, heading, name);
}

/** `seen` (parsed: `tree`) with `from` written as `to` in its tab titles, title and headings. */
function writeTitle(seen: SeenPage, tree: WebTree, from: string, to: string): SeenPage {
  const TITLES = new Set(['RootWebArea', 'heading']);
  const swap = (text: string) => text.replaceAll(from, to);
  const written: WebTree = {
    ...tree,
    tabs: tree.tabs.map((t) => ({ ...t, title: swap(t.title) })),
    nodes: tree.nodes.map((n) =>
      n.name !== undefined && TITLES.has(n.role) ? { ...n, name: swap(n.name) } : n,
    ),
  };
  return { ...seen, observation: { ...seen.observation, text: renderTree(written) } };
}

/** A URL path without its query. */
function pathOnly(key: string): string {
  return key.replace(/\?.*$/, '');
}

/** `seen` with its main heading written as `current`'s (the same page, as this episode named it). */
function keepTitle(seen: SeenPage, current: WebTree): SeenPage {
  const tree = parseTree(seen.observation.text);
  const heading = (t: WebTree) => t.nodes.find((n) => n.role === 'heading' && n.name)?.name;
  const from = tree && heading(tree);
  const to = heading(current);
  if (!tree || !from || !to || from === to) return seen;
  return writeTitle(seen, tree, from, to);
}

function writeSegments(seen: SeenPage, swaps: ReadonlyArray<[string, string]>): SeenPage {
  return swaps.reduce((page, swap) => writeSegment(page, swap), seen);
}

function describeSwaps(swaps: ReadonlyArray<[string, string]>): string {
  return swaps.map(([from, to]) => `"${from}" written as "${to}"`).join(', ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
