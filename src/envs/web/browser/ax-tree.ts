import { isPythonBlank, pythonRepr, pythonStr } from './python-text.ts';

/**
 * The accessibility tree as Chromium's CDP `Accessibility.getFullAXTree` returns it, and the pure
 * function that flattens it to WebArena's text form (WebArena's `parse_accessibility_tree` and
 * `clean_accesibility_tree`, with its viewport filter; options named after BrowserGym's
 * `flatten_axtree_to_str`). No browser is needed: tests run it on saved trees.
 */

/** One CDP AX value (`{ type, value }`); only `value` is read. */
export interface AxValue {
  type?: string;
  value?: unknown;
}

/** One node of `Accessibility.getFullAXTree` (the fields we read; CDP sends more). */
export interface AxNode {
  nodeId: string;
  ignored: boolean;
  role?: AxValue;
  name?: AxValue;
  /** The control's current value (text typed in a field, a select's chosen option). */
  value?: AxValue;
  properties?: Array<{ name: string; value: AxValue }>;
  childIds?: string[];
  parentId?: string;
  /** The DOM node behind this AX node; absent for virtual nodes. */
  backendDOMNodeId?: number;
}

/** One line of the flattened tree: an element the agent can name by `id`. */
export interface FlatElement {
  id: number;
  role: string;
  name: string;
  /** Printed properties, name → value, in the order shown. */
  properties: Record<string, string>;
  /** The DOM node to act on; undefined for virtual nodes (not actionable). */
  backendNodeId: number | undefined;
  depth: number;
}

/** A flattened tree: its text and the elements its lines name. */
export interface FlatTree {
  /** The tree text: one element a line, `[id] role 'name' prop: value …`, tab-indented by depth. */
  text: string;
  /** The elements shown, in line order. */
  elements: FlatElement[];
}

/** WebArena's IGNORED_ACTREE_PROPERTIES: properties never printed. */
export const WEBARENA_IGNORED_PROPERTIES: readonly string[] = [
  'focusable',
  'editable',
  'readonly',
  'level',
  'settable',
  'multiline',
  'invalid',
];

/** Roles WebArena drops when they have no name and no properties (their children move up). */
export const WEBARENA_EMPTY_ROLES: readonly string[] = [
  'generic',
  'img',
  'list',
  'strong',
  'paragraph',
  'banner',
  'navigation',
  'Section',
  'LabelText',
  'Legend',
  'listitem',
];

/** WebArena's IN_VIEWPORT_RATIO_THRESHOLD: a node whose in-view measure is below it is not shown. */
export const WEBARENA_IN_VIEWPORT_RATIO = 0.6;

/** A node's box relative to the viewport, in CSS pixels, as `getBoundingClientRect()` gives it. */
export interface NodeRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The viewport an observation shows and the boxes of the tree's DOM nodes at that moment. */
export interface ViewportBoxes {
  /** Viewport width and height (WebArena reads `window.screen`, which Playwright sets to the viewport). */
  width: number;
  height: number;
  /**
   * Each node's `getBoundingClientRect()` (a text node's through a `Range`), by backend DOM node
   * id. A node missing here could not be measured (WebArena: the call failed) and is not shown.
   */
  rects: ReadonlyMap<number, NodeRect>;
}

/** How the accessibility tree is flattened into WebArena's text format. */
export interface FlattenOptions {
  /**
   * The id printed for a node, called once per shown node in line order (so an allocator sees
   * nodes in document order). Default: the node's `backendDOMNodeId`.
   */
  idOf?: (node: AxNode) => number;
  /** Properties never printed. Default `WEBARENA_IGNORED_PROPERTIES`. */
  ignoredProperties?: readonly string[];
  /** Roles pruned when nameless and property-less. Default `WEBARENA_EMPTY_ROLES`. */
  emptyRoles?: readonly string[];
  /**
   * Print the node's value (typed text, a select's chosen option) as a `value:` property, escaped
   * as Python escapes text. WebArena does not (see docs/web-observation.md for why we do); default
   * true.
   */
  withValue?: boolean;
  /**
   * WebArena's `clean_accesibility_tree`: a line that mentions "statictext" is kept only if it is a
   * StaticText of a DOM node (CSS-generated text is dropped) whose text is not empty and not in
   * one of the 3 kept lines before it. Default true.
   */
  cleanStaticText?: boolean;
  /**
   * Compare the StaticText against whole previous lines, `[id]` included, as WebArena does.
   * Default false: our ids are small numbers that would match text such as `'1'`.
   */
  dedupeWithIds?: boolean;
  /** One level of indentation. Default a tab, as WebArena. */
  indent?: string;
  /**
   * Roles dropped with their whole subtree. Default `InlineTextBox`: whether Chromium sends these
   * children of StaticText depends on its version and on what clients asked before, so showing
   * them would make the text depend on the browser.
   */
  skipRoles?: readonly string[];
  /**
   * Properties dropped from the root (`RootWebArea`) line. Default `url`: the observation's header
   * already names the URL.
   */
  ignoredRootProperties?: readonly string[];
  /**
   * Show only what is in the viewport, as WebArena's `current_viewport_only`: a node is shown when
   * it is the root, or a DOM node measured with a non-zero box whose in-view measure reaches
   * WebArena's threshold, 0.6; the children of a node not shown move up a level. Default:
   * the whole document.
   */
  viewport?: ViewportBoxes;
}

/**
 * Flattens a captured tree to WebArena's text (`parse_accessibility_tree`, then
 * `clean_accesibility_tree`). Ignored nodes and nameless, property-less nodes of
 * `WEBARENA_EMPTY_ROLES` (and nameless list items) are not printed; their children are, one
 * level up. A node with no DOM node is printed but, as in WebArena, does not indent its children.
 * Nodes repeated in CDP's list are read once; child ids missing from it are skipped.
 */
export function flattenAxTree(nodes: readonly AxNode[], options: FlattenOptions = {}): FlatTree {
  const idOf = options.idOf ?? ((node: AxNode) => node.backendDOMNodeId ?? -1);
  const ignored = new Set(options.ignoredProperties ?? WEBARENA_IGNORED_PROPERTIES);
  const emptyRoles = new Set(options.emptyRoles ?? WEBARENA_EMPTY_ROLES);
  const withValue = options.withValue ?? true;
  const clean = options.cleanStaticText ?? true;
  const withIds = options.dedupeWithIds ?? false;
  const indent = options.indent ?? '\t';
  const skipRoles = new Set(options.skipRoles ?? ['InlineTextBox']);
  const ignoredAtRoot = new Set(options.ignoredRootProperties ?? ['url']);
  const inView = options.viewport ? viewportFilter(options.viewport) : () => true;

  const byId = new Map<string, AxNode>();
  for (const node of nodes) if (!byId.has(node.nodeId)) byId.set(node.nodeId, node);
  const root = nodes[0];
  const lines: string[] = [];
  /** The kept lines as StaticText dedup compares against them (without `[id] ` unless `withIds`). */
  const compared: string[] = [];
  const elements: FlatElement[] = [];
  const visited = new Set<string>();

  const describe = (node: AxNode, isRoot: boolean) => {
    if (node.ignored) return undefined;
    const role = node.role?.value;
    const name = node.name?.value;
    if (typeof role !== 'string' || typeof name !== 'string') return undefined;
    const properties: Record<string, string> = {};
    const value = node.value?.value;
    if (withValue && value !== undefined && value !== '' && value !== null) {
      properties.value = pythonStr(String(value));
    }
    for (const property of node.properties ?? []) {
      if (ignored.has(property.name) || property.value?.value === undefined) continue;
      if (isRoot && ignoredAtRoot.has(property.name)) continue;
      properties[property.name] = pythonStr(property.value.value);
    }
    const hasProperties = Object.keys(properties).length > 0;
    if (isPythonBlank(name)) {
      if (!hasProperties && emptyRoles.has(role)) return undefined;
      if (hasProperties && role === 'listitem') return undefined;
    }
    let body = `${role} ${pythonRepr(name)}`;
    for (const [key, shown] of Object.entries(properties)) body += ` ${key}: ${shown}`;
    return { role, name, properties, body };
  };

  /** WebArena's clean step for one line; `virtual`: a node without a DOM node (negative id there). */
  const survivesClean = (body: string, virtual: boolean) => {
    if (!clean || !body.toLowerCase().includes('statictext')) return true;
    // WebArena reads the text with `\[\d+\] StaticText (.+)`, quotes cut off; a virtual node's id
    // is negative there, so its line never matches, and neither does any other role's line.
    const match = /\[\d+\] StaticText ([\s\S]+)/.exec(`[${virtual ? -1 : 0}] ${body}`);
    const text = [...(match?.[1] ?? '')].slice(1, -1).join('');
    return text !== '' && compared.slice(-3).every((previous) => !previous.includes(text));
  };

  const visit = (node: AxNode, depth: number) => {
    if (visited.has(node.nodeId)) return;
    visited.add(node.nodeId);
    const role = node.role?.value;
    if (typeof role === 'string' && skipRoles.has(role)) return;
    const shown = inView(node) ? describe(node, node === root) : undefined;
    const virtual = node.backendDOMNodeId === undefined;
    if (shown && survivesClean(shown.body, virtual)) {
      const id = idOf(node);
      const line = `${indent.repeat(depth)}[${id}] ${shown.body}`;
      lines.push(line);
      compared.push(withIds ? line : shown.body);
      elements.push({
        id,
        role: shown.role,
        name: shown.name,
        properties: shown.properties,
        backendNodeId: node.backendDOMNodeId,
        depth,
      });
    }
    // WebArena indents the children of a parsed line even when cleaning drops it afterwards, but
    // not those of a virtual node (reading its missing DOM id fails after the line is written).
    const childDepth = shown && !virtual ? depth + 1 : depth;
    for (const childId of node.childIds ?? []) {
      const child = byId.get(childId);
      if (child) visit(child, childDepth);
    }
  };
  if (root) visit(root, 0);
  return { text: lines.join('\n'), elements };
}

/**
 * WebArena's viewport test (`current_viewport_only`). Its measure is
 * `overlap_width * overlap_height / width * height`, where the division binds first: not the
 * share of the node in view (that divides by `width * height`) but that share times `height²`.
 * It is kept as written because it decides what WebArena's agents saw: in effect any node with a
 * sliver in view is shown, unless it is under about a pixel tall.
 */
function viewportFilter(viewport: ViewportBoxes): (node: AxNode) => boolean {
  return (node) => {
    if (node.backendDOMNodeId === undefined) return false;
    if (node.role?.value === 'RootWebArea') return true;
    const rect = viewport.rects.get(node.backendDOMNodeId);
    if (!rect || rect.width === 0 || rect.height === 0) return false;
    const overlapWidth = Math.max(
      0,
      Math.min(rect.x + rect.width, viewport.width) - Math.max(rect.x, 0),
    );
    const overlapHeight = Math.max(
      0,
      Math.min(rect.y + rect.height, viewport.height) - Math.max(rect.y, 0),
    );
    const measure = ((overlapWidth * overlapHeight) / rect.width) * rect.height;
    return measure >= WEBARENA_IN_VIEWPORT_RATIO;
  };
}
