import type { Observation } from '../../core/types.ts';
import {
  isFocused,
  nodeById,
  parseTree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';
import { parseWebAction, type WebAction } from './actions.ts';
import { pathKey } from './urls.ts';

/** One tab's navigation history: observations of its pages, `index` the one shown. */
interface TabHistory {
  entries: Observation[];
  index: number;
}

/** What a step did to the page, as {@link EpisodeMemory.apply} classifies it. */
export type StepEffect = 'navigate' | 'reload' | 'in-page' | 'tabs' | 'history' | 'none';

/** A field's key in a form: its role and name (element ids are not stable across pages). */
export function fieldKey(node: Pick<TreeNode, 'role' | 'name'>): string {
  return `${node.role} '${node.name ?? ''}'`;
}

/** A step as the memory replays it: the action and what the env showed after it. */
export interface ReplayedStep {
  action: string;
  observation: Observation;
  info?: { invalidAction?: string };
}

/**
 * An episode's browser state as far as its observations show it: the tabs with their back/forward
 * histories, each page as it was last loaded (by URL path), and the values typed into the current
 * page's fields since it loaded. Rebuilt from the history at each prediction, so the model is
 * consistent within an episode without keeping state between calls.
 */
export class EpisodeMemory {
  readonly tabs: TabHistory[];
  current = 0;
  /** URL path → the page as last loaded in this episode (navigations and submissions, not typing). */
  readonly loaded = new Map<string, Observation>();
  /** Field key → value typed into the current page since it loaded, in typing order. */
  readonly typed = new Map<string, string>();
  /** {@link submissionKey} → the page that form submission led to in this episode. */
  readonly submissions = new Map<string, Observation>();
  /** Names of the buttons clicked in this episode, in order. */
  readonly pressed: string[] = [];
  /** Texts typed in this episode, in order. */
  readonly entered: string[] = [];

  constructor(start: Observation) {
    this.tabs = [{ entries: [start], index: 0 }];
    this.remember(start);
  }

  static replay(start: Observation, steps: readonly ReplayedStep[]): EpisodeMemory {
    const memory = new EpisodeMemory(start);
    for (const step of steps) memory.apply(step);
    return memory;
  }

  /** The observation shown now. */
  get state(): Observation {
    const tab = this.tabs[this.current] as TabHistory;
    return tab.entries[tab.index] as Observation;
  }

  /** The current tab's history. */
  get tab(): TabHistory {
    return this.tabs[this.current] as TabHistory;
  }

  /** Records a step's outcome and says what kind of change it was. */
  apply(step: ReplayedStep): StepEffect {
    if (step.info?.invalidAction) return 'none';
    const action = parseWebAction(step.action);
    const before = this.state;
    const next = step.observation;
    if (!action) return 'none';
    switch (action.kind) {
      case 'new_tab':
        this.tabs.push({ entries: [next], index: 0 });
        this.current = this.tabs.length - 1;
        this.typed.clear();
        return 'tabs';
      case 'tab_focus':
      case 'close_tab':
        if (action.kind === 'close_tab' && this.tabs.length > 1) {
          this.tabs.splice(this.current, 1);
          this.current = this.tabs.length - 1;
        } else if (action.kind === 'tab_focus' && action.index < this.tabs.length) {
          this.current = action.index;
        }
        this.replace(next);
        this.typed.clear();
        return 'tabs';
      case 'go_back':
      case 'go_forward': {
        const tab = this.tab;
        const to = tab.index + (action.kind === 'go_back' ? -1 : 1);
        if (to >= 0 && to < tab.entries.length) tab.index = to;
        this.replace(next);
        this.typed.clear();
        return 'history';
      }
      default:
        return this.change(action, before, next);
    }
  }

  /** A page action's effect: navigation, reload (same URL, new content), or an in-page change. */
  private change(action: WebAction, before: Observation, next: Observation): StepEffect {
    const target = actionTarget(action, before);
    if (action.kind === 'click' && target?.role === 'button') this.pressed.push(target.name ?? '');
    if (action.kind === 'type' && target) this.entered.push(action.text);
    if (next.text === before.text) return 'none';
    const from = pathKey(parseTree(before.text)?.url);
    const to = pathKey(parseTree(next.text)?.url);
    if (from === to && !reloads(action, target, this.typed.size > 0)) {
      if (action.kind === 'type' && target) this.typed.set(fieldKey(target), action.text);
      this.replace(next);
      return 'in-page';
    }
    if (isSubmission(action, target, this.typed.size > 0) && target)
      this.submissions.set(submissionKey(from, target, this.typed, action), next);
    if (from !== to) {
      const tab = this.tab;
      tab.entries.splice(tab.index + 1, tab.entries.length, next);
      tab.index = tab.entries.length - 1;
    } else this.replace(next);
    this.remember(next);
    this.typed.clear();
    return from !== to ? 'navigate' : 'reload';
  }

  /** The page last loaded at `url`'s path in this episode. */
  loadedAt(url: string): Observation | undefined {
    return this.loaded.get(pathKey(url));
  }

  private replace(next: Observation): void {
    const tab = this.tab;
    tab.entries[tab.index] = next;
  }

  private remember(observation: Observation): void {
    const tree: WebTree | undefined = parseTree(observation.text);
    if (tree?.url !== undefined) this.loaded.set(pathKey(tree.url), observation);
  }
}

/** The element an action acts on in `state`: its target, or the focused element for `press`. */
export function actionTarget(action: WebAction, state: Observation): TreeNode | undefined {
  const tree = parseTree(state.text);
  if (!tree) return undefined;
  if ('id' in action) return nodeById(tree, action.id);
  return action.kind === 'press' ? tree.nodes.find(isFocused) : undefined;
}

/**
 * Whether an action that kept the URL but changed the page loaded it anew (the server answered:
 * a link, a button, a submitted form, goto) rather than changing it in place (typing, a checkbox,
 * a menu). Reloaded pages are remembered: a page changed on the server stays changed.
 */
export function reloads(action: WebAction, target: TreeNode | undefined, typed: boolean): boolean {
  switch (action.kind) {
    case 'goto':
      return true;
    case 'type':
      return action.enter;
    case 'press':
      return /enter/i.test(action.key) && typed;
    case 'click':
      return target?.role === 'link' || target?.role === 'button';
    default:
      return false;
  }
}

/**
 * Whether an action submits a form: typing with Enter, Enter pressed, or a button clicked after
 * typing into the page's fields.
 */
export function isSubmission(
  action: WebAction,
  target: TreeNode | undefined,
  typed: boolean,
): boolean {
  if (action.kind === 'type') return action.enter;
  if (action.kind === 'press') return /enter/i.test(action.key) && typed;
  return action.kind === 'click' && target?.role === 'button' && typed;
}

/** The values a submission sends: those typed since the page loaded, plus the typed action's. */
export function formValues(
  typed: ReadonlyMap<string, string>,
  action: WebAction,
  target: TreeNode | undefined,
): Array<[string, string]> {
  const values = new Map(typed);
  if (action.kind === 'type' && target) values.set(fieldKey(target), action.text);
  return [...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Identifies a form submission within an episode: the page, the control and the values sent. */
export function submissionKey(
  fromPath: string,
  target: TreeNode,
  typed: ReadonlyMap<string, string>,
  action: WebAction,
): string {
  return JSON.stringify([fromPath, fieldKey(target), formValues(typed, action, target)]);
}
