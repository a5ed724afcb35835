import type { TreeNode } from '../../envs/formats/web-tree.ts';

/**
 * The structure of a page's accessibility tree that a policy reads around an element: its parent
 * chain, the item it belongs to (a post's article, a table row, a comment), a cell's row and
 * column headers, and the form a field or button is in. Built once per page from the node list
 * (document order, depth by indentation); reads only the tree text.
 */
export class PageStructure {
  /** Index of each node's parent; -1 for roots. */
  private readonly parents: Int32Array;
  private readonly blockTexts = new Map<number, string>();

  constructor(readonly nodes: readonly TreeNode[]) {
    this.parents = new Int32Array(nodes.length).fill(-1);
    const stack: number[] = [];
    nodes.forEach((node, i) => {
      while (stack.length > 0 && (nodes[stack.at(-1) as number] as TreeNode).depth >= node.depth)
        stack.pop();
      this.parents[i] = stack.at(-1) ?? -1;
      stack.push(i);
    });
  }

  parent(index: number): number {
    return this.parents[index] ?? -1;
  }

  /** The nearest ancestor (or the node itself) whose role is in `roles`; -1 if none. */
  closest(index: number, roles: ReadonlySet<string>): number {
    for (let i = index; i >= 0; i = this.parent(i)) {
      if (roles.has((this.nodes[i] as TreeNode).role)) return i;
    }
    return -1;
  }

  /** The item `index` belongs to (article, row, list item); -1 if none. */
  block(index: number): number {
    return this.closest(index, BLOCKS);
  }

  /**
   * The words of the item `index` belongs to: its own name and its descendants' names, without
   * nested items (a comment's replies are items of their own). Empty outside any item.
   */
  blockText(index: number): string {
    const block = this.block(index);
    if (block < 0) return '';
    const cached = this.blockTexts.get(block);
    if (cached !== undefined) return cached;
    const parts: string[] = [];
    const depth = (this.nodes[block] as TreeNode).depth;
    let skipBelow = Number.POSITIVE_INFINITY;
    for (let i = block; i < this.nodes.length; i++) {
      const node = this.nodes[i] as TreeNode;
      if (i > block && node.depth <= depth) break;
      if (node.depth > skipBelow) continue;
      skipBelow = Number.POSITIVE_INFINITY;
      if (i > block && BLOCKS.has(node.role)) {
        skipBelow = node.depth;
        continue;
      }
      if (node.name) parts.push(node.name);
    }
    const text = parts.join(' ').slice(0, 400);
    this.blockTexts.set(block, text);
    return text;
  }

  /** A cell's row header and column header (empty strings when it has none). */
  headers(index: number): { row: string; column: string } {
    const node = this.nodes[index] as TreeNode;
    if (node.role !== 'cell' && node.role !== 'gridcell') return { row: '', column: '' };
    const row = this.parent(index);
    if (row < 0) return { row: '', column: '' };
    const cells = this.children(row);
    const rowHeader = cells.find((i) => (this.nodes[i] as TreeNode).role === 'rowheader');
    const position = cells.indexOf(index);
    const table = this.closest(row, TABLES);
    let column = '';
    if (table >= 0 && position >= 0) {
      for (let i = table + 1; i < this.nodes.length; i++) {
        const other = this.nodes[i] as TreeNode;
        if (other.depth <= (this.nodes[table] as TreeNode).depth) break;
        if (other.role !== 'row') continue;
        const heads = this.children(i);
        if (heads.some((h) => (this.nodes[h] as TreeNode).role === 'columnheader')) {
          column = this.nodes[heads[position] as number]?.name ?? '';
          break;
        }
      }
    }
    return {
      row: rowHeader === undefined ? '' : ((this.nodes[rowHeader] as TreeNode).name ?? ''),
      column,
    };
  }

  /** The form `index` is in; -1 if none. */
  form(index: number): number {
    return this.closest(this.parent(index), FORMS);
  }

  /** The text fields and selects of the form at `form`, in order. */
  fields(form: number): number[] {
    const out: number[] = [];
    const depth = (this.nodes[form] as TreeNode).depth;
    for (let i = form + 1; i < this.nodes.length; i++) {
      const node = this.nodes[i] as TreeNode;
      if (node.depth <= depth) break;
      if (FIELDS.has(node.role)) out.push(i);
    }
    return out;
  }

  /** The direct children of `index`. */
  children(index: number): number[] {
    const out: number[] = [];
    for (let i = index + 1; i < this.nodes.length && this.parent(i) >= index; i++) {
      if (this.parent(i) === index) out.push(i);
    }
    return out;
  }
}

const BLOCKS = new Set(['article', 'row', 'listitem']);
const TABLES = new Set(['table', 'grid', 'treegrid']);
const FORMS = new Set(['form', 'search']);
/** Elements a `type` action fills. */
const FIELDS = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);
