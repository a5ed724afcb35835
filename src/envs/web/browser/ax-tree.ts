/**
 * The accessibility tree as Chromium's CDP `Accessibility.getFullAXTree` returns it, and the pure
 * function that flattens it to WebArena's text form (after BrowserGym's `flatten_axtree_to_str` and
 * WebArena's `parse_accessibility_tree` + `clean_accesibility_tree`). No browser is needed: tests
 * run it on saved trees.
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

/** How the accessibility tree is flattened into WebArena's text format. */
export interface FlattenOptions {
  /**
   * The id printed for a node, called once per shown node in line order (so an allocator sees
   * nodes in document order). Default: the node's `backendDOMNodeId`, as WebArena prints.
   */
  idOf?: (node: AxNode) => number;
  /** Properties never printed. Default `WEBARENA_IGNORED_PROPERTIES`. */
  ignoredProperties?: readonly string[];
  /** Roles pruned when nameless and property-less. Default `WEBARENA_EMPTY_ROLES`. */
  emptyRoles?: readonly string[];
  /**
   * Print the node's value (typed text, chosen option) as a `value:` property. WebArena does not,
   * which hides what was typed; default true.
   */
  withValue?: boolean;
  /**
   * Drop a StaticText line whose text already appears in one of the 3 lines before it (WebArena's
   * `clean_accesibility_tree`). Default true.
   */
  dedupeStaticText?: boolean;
  /** One level of indentation. Default a tab, as WebArena. */
  indent?: string;
  /**
   * Roles dropped with their whole subtree. Default `InlineTextBox`: Chromium adds these children
   * of StaticText only once some client asked for them, so showing them would make the text
   * depend on the browser's history.
   */
  skipRoles?: readonly string[];
  /**
   * Properties dropped from the root (`RootWebArea`) line. Default `url`: the observation's header
   * already names the URL.
   */
  ignoredRootProperties?: readonly string[];
}

/**
 * Flattens a captured tree to WebArena's text. Ignored nodes and nameless, property-less nodes of
 * `WEBARENA_EMPTY_ROLES` (and nameless list items) are not printed; their children are, one
 * level up. Nodes repeated in CDP's list are read once; child ids missing from it are skipped.
 */
export function flattenAxTree(nodes: readonly AxNode[], options: FlattenOptions = {}): FlatTree {
  const idOf = options.idOf ?? ((node: AxNode) => node.backendDOMNodeId ?? -1);
  const ignored = new Set(options.ignoredProperties ?? WEBARENA_IGNORED_PROPERTIES);
  const emptyRoles = new Set(options.emptyRoles ?? WEBARENA_EMPTY_ROLES);
  const withValue = options.withValue ?? true;
  const dedupe = options.dedupeStaticText ?? true;
  const indent = options.indent ?? '\t';
  const skipRoles = new Set(options.skipRoles ?? ['InlineTextBox']);
  const ignoredAtRoot = new Set(options.ignoredRootProperties ?? ['url']);

  const byId = new Map<string, AxNode>();
  for (const node of nodes) if (!byId.has(node.nodeId)) byId.set(node.nodeId, node);
  const root = nodes[0];
  const lines: string[] = [];
  /** Each printed line without its `[id] ` prefix: what StaticText dedup compares against. */
  const bodies: string[] = [];
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
      properties.value = String(value);
    }
    for (const property of node.properties ?? []) {
      if (ignored.has(property.name) || property.value?.value === undefined) continue;
      if (isRoot && ignoredAtRoot.has(property.name)) continue;
      properties[property.name] = pythonStr(property.value.value);
    }
    const hasProperties = Object.keys(properties).length > 0;
    if (name.trim() === '') {
      if (!hasProperties && emptyRoles.has(role)) return undefined;
      if (hasProperties && role === 'listitem') return undefined;
    }
    let body = `${role} ${pythonRepr(name)}`;
    for (const [key, shown] of Object.entries(properties)) body += ` ${key}: ${shown}`;
    if (dedupe && role === 'StaticText' && name !== '') {
      if (bodies.slice(-3).some((previous) => previous.includes(name))) return undefined;
    }
    return { role, name, properties, body };
  };

  const visit = (node: AxNode, depth: number) => {
    if (visited.has(node.nodeId)) return;
    visited.add(node.nodeId);
    const role = node.role?.value;
    if (typeof role === 'string' && skipRoles.has(role)) return;
    const shown = describe(node, node === root);
    if (shown) {
      const id = idOf(node);
      lines.push(`${indent.repeat(depth)}[${id}] ${shown.body}`);
      bodies.push(shown.body);
      elements.push({
        id,
        role: shown.role,
        name: shown.name,
        properties: shown.properties,
        backendNodeId: node.backendDOMNodeId,
        depth,
      });
    }
    for (const childId of node.childIds ?? []) {
      const child = byId.get(childId);
      if (child) visit(child, shown ? depth + 1 : depth);
    }
  };
  if (root) visit(root, 0);
  return { text: lines.join('\n'), elements };
}

/** Python's `str()` of a CDP value: booleans as `True`/`False`, as WebArena prints them. */
function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Python's `repr()` of a string, as WebArena prints names: single quotes unless the text holds a
 * single quote and no double quote; backslashes, quotes and control characters escaped.
 */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return out + quote;
}
