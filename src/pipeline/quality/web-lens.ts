import type { Observation, Trajectory } from '../../core/types.ts';
import {
  nodeById,
  parseTree,
  renderHeader,
  subtree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';
import type { ObservationFacts, QualityLens } from '../../envs/quality-lens.ts';
import { parseWebAction, type WebAction } from '../../experience/web/actions.ts';
import { pathKey } from '../../experience/web/urls.ts';

/** Roles whose state a person sets on the page: their state is a field fact, not page content. */
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch']);
/** Properties that say what a person did on a page (typed, ticked, focused), not what it holds. */
const FORM_STATE = new Set(['focused', 'value', 'checked', 'selected', 'expanded']);
/** Roles of live regions, which announce what just happened. */
const LIVE_ROLES = new Set(['status', 'alert', 'log', 'marquee', 'timer']);
/** An identifier shown as text: a SKU (`APP-1672`), an order number (`#000000819`). */
const IDENTIFIER = /^(?=.*\d)(?=.*[A-Z#])[A-Z0-9#][A-Z0-9#-]{3,}$/;

/**
 * The quality lens of web pages in WebArena's accessibility-tree text (the built-in web apps and
 * WebArena sites), written from the text format alone: element ids (`[123]`) never enter a fact
 * or an entity, since they are numbering, not content.
 *
 * Entities: what identifies content on a page — the subject of the page (the first heading of
 * its `main` region: a post's title, a user's or customer's name, `Order #…`), the names of links
 * that point at an item (a URL path ending in a number: posts, orders, products, customers; or a
 * link named by its own path or last segment: `f/jazz` → `/f/jazz`, `amber_heron` →
 * `/user/amber_heron`), and identifier-like table cells (SKUs, order numbers).
 *
 * Facts: a page view by its URL's path and query (`page:/f/jazz/388` → a fingerprint of the
 * page: title, every element's depth, role, name and properties, link URLs without their origin,
 * less ids, form state and live regions — `Your vote was counted.` is said once), and each form
 * field's state (`field:/path:role 'name'` → its value, or checked). A page shown right after a
 * failed navigation (an `Error:` line) asserts nothing.
 *
 * Invalidation: an action that may change the site — a click on a button, Enter in a field, a
 * submission — forgets every page and field of the episode (a vote changes the post's score on
 * every list that shows it), except a search (Enter in a searchbox or in a `search` region, or
 * that region's button), which only reads. Typing into a field forgets that field (with Enter
 * too: the browser may show the typed value again when `go_back` brings the page back); clicking a
 * control that is neither a link nor a button (a checkbox, a radio, an option) forgets the
 * page's fields. Loading a page again forgets the fields typed into since it last loaded (the
 * unsent values are gone). After a site change, a page brought back by `go_back`/`go_forward`
 * asserts nothing: the browser may restore it as it was before the change.
 */
export const webLens: QualityLens = {
  family: 'web',
  entities(text) {
    const tree = parseTree(text);
    return tree ? pageEntities(tree) : [];
  },
  facts(trajectory: Trajectory) {
    const out: ObservationFacts[] = [{ t: 0, invalidates: [], facts: [] }];
    /** Every key asserted so far in the episode, by page path (what a site change forgets). */
    const keysByPath = new Map<string, Set<string>>();
    /** Paths whose fields were typed into since the page last loaded. */
    const typedPaths = new Set<string>();
    let changedSite = false;
    const record = (path: string, facts: Array<[string, string]>) => {
      const keys = keysByPath.get(path) ?? new Set<string>();
      for (const [key] of facts) keys.add(key);
      keysByPath.set(path, keys);
    };
    const fieldKeys = (path: string) =>
      [...(keysByPath.get(path) ?? [])].filter((k) => k.startsWith('field:'));
    const initial = observationFacts(trajectory.initial);
    if (initial) {
      out[0] = { t: 0, invalidates: [], facts: initial.facts };
      record(initial.path, initial.facts);
    }
    let state: Observation = trajectory.initial;
    for (const [i, step] of trajectory.steps.entries()) {
      if (step.info?.invalidAction) {
        out.push({ t: i + 1, invalidates: [], facts: [] });
        continue;
      }
      const before = parseTree(state.text);
      const after = parseTree(step.observation.text);
      const from = pathKey(before?.url);
      const to = pathKey(after?.url);
      const action = parseWebAction(step.action);
      const effect = action ? effectOf(action, before) : 'reads';
      const invalidates: string[] = [];
      if (effect === 'changes-site') {
        for (const keys of keysByPath.values()) invalidates.push(...keys);
        typedPaths.clear();
        changedSite = true;
      } else if (action?.kind === 'type') {
        // With Enter too: the page left keeps the typed value, and `go_back` may show it again.
        const target = before && nodeById(before, action.id);
        if (target) invalidates.push(fieldKey(from, target));
        typedPaths.add(from);
      } else if (effect === 'sets-form') {
        invalidates.push(...fieldKeys(from));
        typedPaths.add(from);
      }
      if (from !== to || effect === 'loads' || effect === 'changes-site') {
        for (const path of typedPaths) invalidates.push(...fieldKeys(path));
        typedPaths.clear();
      }
      const history = action?.kind === 'go_back' || action?.kind === 'go_forward';
      let facts: Array<[string, string]> = [];
      const seen = observationFacts(step.observation);
      if (seen && history && changedSite) invalidates.push(...(keysByPath.get(seen.path) ?? []));
      else if (seen) facts = seen.facts;
      if (seen) record(seen.path, facts);
      // A page the browser restores from its history may still hold values typed before.
      if (seen && history) typedPaths.add(seen.path);
      out.push({ t: i + 1, invalidates, facts });
      state = step.observation;
    }
    return out;
  },
};

/** What an action may do: change the site, set a field or a form control, load a page, or only read. */
type Effect = 'changes-site' | 'sets-field' | 'sets-form' | 'loads' | 'reads';

function effectOf(action: WebAction, before: WebTree | undefined): Effect {
  const target = before && 'id' in action ? nodeById(before, action.id) : undefined;
  const searching = target !== undefined && before !== undefined && inSearch(before, target);
  switch (action.kind) {
    case 'type':
      if (!action.enter) return 'sets-field';
      return searching || target?.role === 'searchbox' ? 'loads' : 'changes-site';
    case 'press':
      return /enter/i.test(action.key) ? 'changes-site' : 'reads';
    case 'click':
      if (target?.role === 'link') return 'loads';
      if (target?.role === 'button') return searching ? 'loads' : 'changes-site';
      return 'sets-form';
    case 'goto':
      return 'loads';
    default:
      return 'reads';
  }
}

/** The facts one observation asserts, with its page path; undefined when it is no page. */
function observationFacts(
  observation: Observation,
): { path: string; facts: Array<[string, string]> } | undefined {
  const tree = parseTree(observation.text);
  if (!tree || tree.url === undefined || tree.error !== undefined) return undefined;
  const path = pathKey(tree.url);
  const facts: Array<[string, string]> = [[`page:${path}`, fingerprint(tree)]];
  for (const node of tree.nodes) {
    if (!FIELD_ROLES.has(node.role)) continue;
    const value = node.props.find(([k]) => k === 'value' || k === 'checked')?.[1] ?? '';
    facts.push([fieldKey(path, node), value]);
  }
  return { path, facts };
}

/** A field's key: the page path and the field's role and name (ids are numbering). */
function fieldKey(path: string, node: TreeNode): string {
  return `field:${path}:${node.role} '${node.name ?? ''}'`;
}

/**
 * What a page shows, without what identifies the rendering rather than the content: no element
 * ids, no form state, no origins in link URLs (a site's port may change between runs).
 */
export function fingerprint(tree: WebTree): string {
  const title = renderHeader({ ...tree, tabs: tree.tabs.filter((t) => t.current), url: '' })[0];
  const lines: string[] = [title ?? ''];
  for (let i = 0; i < tree.nodes.length; i++) {
    const node = tree.nodes[i] as TreeNode;
    if (isNotice(node)) {
      i = subtree(tree.nodes, i)[1] - 1;
      continue;
    }
    const props = node.props
      .filter(([k]) => !FORM_STATE.has(k))
      .map(([k, v]) => ` ${k}: ${k === 'url' ? pathKey(v) : v}`)
      .join('');
    lines.push(`${node.depth} ${node.role} ${JSON.stringify(node.name ?? '')}${props}`);
  }
  return lines.join('\n');
}

/**
 * A live region (`status`, `alert`, any element with a `live:` property): a notice of what the
 * last action did (`Your vote was counted.`), shown once, not content of the page.
 */
function isNotice(node: TreeNode): boolean {
  return LIVE_ROLES.has(node.role) || node.props.some(([k]) => k === 'live');
}

/** The entities of a page (see {@link webLens}), in page order, each once. */
export function pageEntities(tree: WebTree): string[] {
  const found = new Set<string>();
  const main = tree.nodes.findIndex((n) => n.role === 'main');
  const [start, end] = main >= 0 ? subtree(tree.nodes, main) : [0, tree.nodes.length];
  const subject = tree.nodes.slice(start, end).find((n) => n.role === 'heading' && n.name);
  if (subject?.name) found.add(subject.name);
  for (const node of tree.nodes) {
    const name = node.name?.trim();
    if (!name) continue;
    if (node.role === 'link' && pointsAtItem(name, node)) found.add(name);
    if ((node.role === 'cell' || node.role === 'gridcell') && IDENTIFIER.test(name))
      found.add(name);
  }
  return [...found];
}

function pointsAtItem(name: string, link: TreeNode): boolean {
  const url = link.props.find(([k]) => k === 'url')?.[1];
  if (!url) return false;
  const segments = pathKey(url).replace(/\?.*$/, '').split('/').filter(Boolean);
  const last = segments.at(-1);
  if (last === undefined) return false;
  if (/^\d+$/.test(last)) return !/^\d+$/.test(name);
  return name === segments.join('/') || name === last;
}

/** Whether `node` lies in a `search` region of the page. */
function inSearch(tree: WebTree, node: TreeNode): boolean {
  const at = tree.nodes.indexOf(node);
  for (let i = at - 1, depth = node.depth; i >= 0 && depth > 0; i--) {
    const above = tree.nodes[i] as TreeNode;
    if (above.depth >= depth) continue;
    if (above.role === 'search') return true;
    depth = above.depth;
  }
  return false;
}
