import {
  isFocused,
  parseTree,
  renderHeader,
  renderNode,
  type TreeNode,
} from '../../envs/formats/web-tree.ts';
import { parseWebAction } from './actions.ts';

/** What a pruned tree must keep first, besides the header and the root. */
export interface PruneFocus {
  /** The action taken on this page: its target's region is kept (and the target's ancestors). */
  action?: string;
  /** The page before this one: lines it did not show (the changed region) are kept. */
  before?: string;
}

/** Lines kept on each side of the action's target. */
const REGION = 6;
/** Roles kept after the regions: how the page is organised and where it leads. */
const LANDMARKS = new Set(['heading', 'link', 'button', 'textbox', 'searchbox', 'combobox']);

/**
 * An accessibility-tree page cut to about `budget` characters for a prompt, keeping in order:
 * the header (tabs, URL) and the root line; the region around the action's target with its
 * ancestors; the lines that changed since `focus.before`; the focused element; then headings,
 * links, buttons and fields in page order; then other lines in page order. Kept lines stay in page
 * order at their depth, and each run of cut lines becomes one marker line
 * `[… N lines cut …]`. Text that is not a tree, or that fits, comes back unchanged.
 */
export function pruneTree(text: string, budget: number, focus: PruneFocus = {}): string {
  if (text.length <= budget) return text;
  const tree = parseTree(text);
  if (!tree) return text;
  const { nodes } = tree;
  const lines = nodes.map(renderNode);
  const header = [...renderHeader(tree), ''].join('\n');
  const keep = new Set<number>([0]);
  // Each marker costs about this much; reserve it with every line kept.
  const markerCost = 24;
  let used = header.length + (lines[0]?.length ?? 0) + 1;
  const take = (i: number): boolean => {
    if (keep.has(i)) return true;
    const cost = (lines[i] as string).length + 1 + markerCost;
    if (used + cost > budget) return false;
    keep.add(i);
    used += cost;
    return true;
  };
  const withAncestors = (i: number) => {
    for (const a of ancestors(nodes, i)) take(a);
    take(i);
  };
  const parsed = focus.action ? parseWebAction(focus.action) : undefined;
  const target = parsed && 'id' in parsed ? nodes.findIndex((n) => n.id === parsed.id) : -1;
  if (target >= 0) {
    withAncestors(target);
    for (let d = 1; d <= REGION; d++) {
      if (target + d < nodes.length) take(target + d);
      if (target - d >= 0) take(target - d);
    }
  }
  if (focus.before !== undefined) {
    const shown = new Set(focus.before.split('\n').map((l) => l.replace(/^\t*/, '')));
    const changed = nodes.flatMap((_, i) =>
      shown.has((lines[i] as string).replace(/^\t*/, '')) ? [] : [i],
    );
    // A new page changes every line: then nothing stands out, and the landmarks decide.
    if (changed.length <= nodes.length / 2) for (const i of changed) withAncestors(i);
  }
  nodes.forEach((n, i) => {
    if (isFocused(n)) withAncestors(i);
  });
  nodes.forEach((n, i) => {
    if (LANDMARKS.has(n.role)) take(i);
  });
  nodes.forEach((_, i) => {
    take(i);
  });
  const out: string[] = [];
  let cut = 0;
  nodes.forEach((n, i) => {
    if (keep.has(i)) {
      if (cut > 0) out.push(marker(cut, n.depth));
      cut = 0;
      out.push(lines[i] as string);
    } else cut++;
  });
  if (cut > 0) out.push(marker(cut, 1));
  return `${header}\n${out.join('\n')}`;
}

function marker(count: number, depth: number): string {
  return `${'\t'.repeat(depth)}[… ${count} line${count === 1 ? '' : 's'} cut …]`;
}

/** Indices of a node's ancestors, nearest first. */
function ancestors(nodes: readonly TreeNode[], index: number): number[] {
  const out: number[] = [];
  let depth = (nodes[index] as TreeNode).depth;
  for (let i = index - 1; i >= 0 && depth > 0; i--) {
    const node = nodes[i] as TreeNode;
    if (node.depth < depth) {
      out.push(i);
      depth = node.depth;
    }
  }
  return out;
}
