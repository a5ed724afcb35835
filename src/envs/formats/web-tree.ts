/**
 * WebArena's accessibility-tree text, read and written back. The format is public (WebArena's
 * observation: the open tabs, the URL, a blank line, then one element a line
 * `[id] role 'name' prop: value …`, indented by depth with tabs); this module is written from
 * that format alone and imports nothing of the browser env, so the experience side never reaches
 * a real env's code. `renderTree(parseTree(text))` gives `text` back for every well-formed page.
 */

/** One element line: `[id] role 'name' prop: value …` at `depth` tabs. */
export interface TreeNode {
  id: string;
  role: string;
  /** The accessible name; undefined when the line shows none. */
  name: string | undefined;
  /** Properties in the order shown, e.g. `[['focused', 'True'], ['required', 'False']]`. */
  props: Array<[string, string]>;
  depth: number;
}

/** An open tab as the header lists it. */
export interface Tab {
  title: string;
  current: boolean;
}

/** A page observation: its header (tabs and URL) and its elements in document order. */
export interface WebTree {
  tabs: Tab[];
  /**
   * `inline`: tabs on one line joined by ` | ` (WebArena's and the browser env's); `lines`: one
   * line each. A header with one tab reads as `inline`.
   */
  tabLayout: 'inline' | 'lines';
  /** The current tab's URL; undefined when the header shows none. */
  url: string | undefined;
  /** The `Error:` line the env shows right after a failed navigation. */
  error?: string;
  nodes: TreeNode[];
}

const TAB = /^Tab (\d+)( \(current\))?: ?(.*)$/;
/** ` | ` before the next `Tab N:` (a title may hold ` | ` itself). */
const TAB_SEPARATOR = / \| (?=Tab \d+(?: \(current\))?: )/;
const NODE = /^(\t*)\[([^\]\s]+)\] (\S+)(.*)$/;
const PROP = /(?:^| )([A-Za-z][\w-]*): /g;

/** The last few pages parsed, by text: an episode's page is read by several readers in turn. */
const recent = new Map<string, WebTree | undefined>();
const RECENT = 32;

/**
 * Parses a page observation; undefined for text that is not an accessibility-tree page. The tree
 * is frozen (its nodes and props too) and may be shared with other callers that parsed the same
 * text: derive a new tree rather than change it.
 */
export function parseTree(text: string): Readonly<WebTree> | undefined {
  if (recent.has(text)) {
    const tree = recent.get(text);
    recent.delete(text);
    recent.set(text, tree);
    return tree;
  }
  const tree = parse(text);
  if (tree) deepFreeze(tree);
  recent.set(text, tree);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value as string);
  return tree;
}

function deepFreeze(tree: WebTree): void {
  for (const node of tree.nodes) {
    for (const pair of node.props) Object.freeze(pair);
    Object.freeze(node.props);
    Object.freeze(node);
  }
  for (const tab of tree.tabs) Object.freeze(tab);
  Object.freeze(tree.nodes);
  Object.freeze(tree.tabs);
  Object.freeze(tree);
}

function parse(text: string): WebTree | undefined {
  const lines = text.split('\n');
  const blank = lines.indexOf('');
  if (blank < 0) return undefined;
  const tabs: Tab[] = [];
  let tabLines = 0;
  let url: string | undefined;
  let error: string | undefined;
  for (const line of lines.slice(0, blank)) {
    if (line.startsWith('URL: ')) {
      url = line.slice(5);
      continue;
    }
    if (line.startsWith('Error: ')) {
      error = line.slice(7);
      continue;
    }
    tabLines++;
    for (const part of line.split(TAB_SEPARATOR)) {
      const tab = TAB.exec(part);
      if (!tab) return undefined;
      tabs.push({ title: tab[3] as string, current: tab[2] !== undefined });
    }
  }
  const tabLayout = tabLines > 1 ? 'lines' : 'inline';
  const nodes: TreeNode[] = [];
  for (const line of lines.slice(blank + 1)) {
    if (line === '') continue;
    const node = parseNode(line);
    if (!node) return undefined;
    nodes.push(node);
  }
  if (nodes.length === 0) return undefined;
  return error === undefined
    ? { tabs, tabLayout, url, nodes }
    : { tabs, tabLayout, url, error, nodes };
}

/** Parses one element line; undefined when it is not one. */
export function parseNode(line: string): TreeNode | undefined {
  const match = NODE.exec(line);
  if (!match) return undefined;
  const [, tabs, id, role, rest] = match as unknown as [string, string, string, string, string];
  let name: string | undefined;
  let tail = rest;
  if (tail.startsWith(" '") || tail.startsWith(' "')) {
    const quoted = readQuoted(tail, 1);
    if (!quoted) return undefined;
    name = quoted.value;
    tail = tail.slice(quoted.end);
  }
  const props = parseProps(tail);
  if (!props) return undefined;
  return { id, role, name, props, depth: tabs.length };
}

/** `key: value` pairs of a line's tail (which starts with a space or is empty). */
function parseProps(tail: string): Array<[string, string]> | undefined {
  if (tail === '') return [];
  if (!tail.startsWith(' ')) return undefined;
  const body = tail.slice(1);
  const keys = [...body.matchAll(PROP)];
  if (keys.length === 0 || keys[0]?.index !== 0) return undefined;
  return keys.map((m, i) => {
    const start = (m.index as number) + m[0].length;
    const end = keys[i + 1]?.index ?? body.length;
    return [m[1] as string, body.slice(start, end)];
  });
}

/** Reads a Python-repr string literal starting at `text[at]`; its value and where it ends. */
function readQuoted(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  let value = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === quote) return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = text[++i];
    if (next === 'n') value += '\n';
    else if (next === 't') value += '\t';
    else if (next === 'r') value += '\r';
    else if (next === 'x' || next === 'u') {
      const width = next === 'x' ? 2 : 4;
      value += String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 1 + width), 16));
      i += width;
    } else value += next ?? '';
  }
  return undefined;
}

/** A name quoted as Python's `repr` quotes a string (WebArena writes names that way). */
export function quoteName(name: string): string {
  const quote = name.includes("'") && !name.includes('"') ? '"' : "'";
  let out = '';
  for (const c of name) {
    if (c === '\\') out += '\\\\';
    else if (c === quote) out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '\r') out += '\\r';
    else if (c < ' ') out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return `${quote}${out}${quote}`;
}

/** One element line, as the env writes it. */
export function renderNode(node: TreeNode): string {
  const name = node.name === undefined ? '' : ` ${quoteName(node.name)}`;
  const props = node.props.map(([k, v]) => ` ${k}: ${v}`).join('');
  return `${'\t'.repeat(node.depth)}[${node.id}] ${node.role}${name}${props}`;
}

/** The header lines: the tabs and the URL. */
export function renderHeader(
  tree: Pick<WebTree, 'tabs' | 'tabLayout' | 'url' | 'error'>,
): string[] {
  const tabs = tree.tabs.map((t, i) => `Tab ${i}${t.current ? ' (current)' : ''}: ${t.title}`);
  const lines = tree.tabLayout === 'inline' ? [tabs.join(' | ')] : tabs;
  if (tree.url !== undefined) lines.push(`URL: ${tree.url}`);
  if (tree.error !== undefined) lines.push(`Error: ${tree.error}`);
  return lines;
}

/** The page text back: header, blank line, one element a line. */
export function renderTree(tree: WebTree): string {
  return [...renderHeader(tree), '', ...tree.nodes.map(renderNode)].join('\n');
}

/** The value of property `key` of a node, or undefined. */
export function prop(node: TreeNode, key: string): string | undefined {
  return node.props.find(([k]) => k === key)?.[1];
}

/** The node with element id `id`, or undefined. */
export function nodeById(tree: WebTree, id: string): TreeNode | undefined {
  return tree.nodes.find((n) => n.id === id);
}

/** Index range [start, end) of a node and its descendants in `nodes`. */
export function subtree(nodes: readonly TreeNode[], index: number): [number, number] {
  const depth = (nodes[index] as TreeNode).depth;
  let end = index + 1;
  while (end < nodes.length && (nodes[end] as TreeNode).depth > depth) end++;
  return [index, end];
}

/** The page's title: the current tab's, else the root element's name. */
export function pageTitle(tree: WebTree): string {
  return tree.tabs.find((t) => t.current)?.title ?? tree.nodes[0]?.name ?? '';
}

/** Every name shown on the page, in order (the page's visible text, one name a line). */
export function pageText(tree: WebTree): string {
  return tree.nodes
    .map((n) => n.name ?? '')
    .filter((n) => n.length > 0)
    .join('\n');
}

/** True when the element has keyboard focus (`focused: True`). */
export function isFocused(node: TreeNode): boolean {
  return node.props.some(([k, v]) => k === 'focused' && v === 'True');
}
