import { type Html, html } from './html.ts';

/** A line of a web accessibility tree in WebArena's text form: tabs, then `[id] role …`. */
const TREE_LINE = /^(\t*)\[\d+\] \S/;

interface TreeNode {
  line: string;
  children: TreeNode[];
}

/**
 * An observation's text as markup: as it is (pre-formatted), except that a web page's
 * accessibility tree becomes nested, collapsible `<details>` elements (open), one per node with
 * children, so a long page can be folded to the part that matters. The lines before the tree
 * (tabs, URL) stay as text.
 */
export function stateText(text: string): Html {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => TREE_LINE.test(line));
  if (first === -1) return html`<pre class="state">${text}</pre>`;
  const roots: TreeNode[] = [];
  const open: TreeNode[] = [];
  for (const line of lines.slice(first)) {
    if (line.trim() === '') continue;
    const depth = TREE_LINE.exec(line)?.[1]?.length ?? open.length;
    const node: TreeNode = { line: line.trimStart(), children: [] };
    open.length = Math.min(depth, open.length);
    (open.at(-1)?.children ?? roots).push(node);
    open.push(node);
  }
  const head = lines.slice(0, first).join('\n').trimEnd();
  return html`<div class="state">${head && html`<pre>${head}</pre>`}<div class="tree">${roots.map(treeNode)}</div></div>`;
}

function treeNode(node: TreeNode): Html {
  if (node.children.length === 0) return html`<div class="leaf">${node.line}</div>`;
  return html`<details open><summary>${node.line}</summary>${node.children.map(treeNode)}</details>`;
}
