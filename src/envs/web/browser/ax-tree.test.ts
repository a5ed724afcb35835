import { describe, expect, it } from 'vitest';
import { type AxNode, flattenAxTree } from './ax-tree.ts';
import { ElementIds } from './element-ids.ts';

/** A CDP-shaped node (the fields Chromium sends that we read). */
const node = (
  nodeId: string,
  role: string,
  name: string | undefined,
  childIds: string[] = [],
  extra: Partial<AxNode> & { props?: Record<string, unknown> } = {},
): AxNode => {
  const { props, ...rest } = extra;
  return {
    nodeId,
    ignored: false,
    role: { type: 'role', value: role },
    ...(name !== undefined && { name: { type: 'computedString', value: name } }),
    properties: Object.entries(props ?? {}).map(([key, value]) => ({
      name: key,
      value: { type: typeof value === 'boolean' ? 'booleanOrUndefined' : 'string', value },
    })),
    childIds,
    backendDOMNodeId: Number(nodeId) * 10,
    ...rest,
  };
};

/** A forum page: nav links, an ignored wrapper, a nameless list, a form, repeated text. */
const forumTree: AxNode[] = [
  node('1', 'RootWebArea', 'Forum — Cooking', ['2', '3'], {
    props: { focusable: true, focused: true, url: 'http://x/f/cooking' },
  }),
  {
    nodeId: '2',
    ignored: true,
    role: { value: 'none' },
    childIds: ['4', '5', '6'],
    backendDOMNodeId: 20,
  },
  node('3', 'generic', '', ['7', '8']),
  node('4', 'link', 'Home', ['9'], { props: { focusable: true, url: 'http://x/' } }),
  node('5', 'heading', 'Cooking', ['10'], { props: { level: 1 } }),
  node('6', 'list', '', ['11']),
  node('7', 'searchbox', 'Search', [], {
    props: { focusable: true, editable: 'plaintext', required: false },
    value: { type: 'string', value: 'pasta' },
  }),
  node('8', 'button', "Chef's pick", []),
  node('9', 'StaticText', 'Home', ['12']),
  node('10', 'StaticText', 'Cooking', []),
  node('11', 'listitem', '', ['13', '14']),
  node('12', 'InlineTextBox', 'Home', []),
  node('13', 'link', 'Best pasta sauce?', ['15']),
  node('14', 'StaticText', '12 comments', []),
  node('15', 'StaticText', 'Best pasta sauce?', []),
];

describe('flattenAxTree', () => {
  it("renders WebArena's text: pruned empty nodes, indented by depth, properties, ids", () => {
    const { text } = flattenAxTree(forumTree);
    expect(text).toBe(
      [
        "[10] RootWebArea 'Forum — Cooking' focused: True",
        "\t[40] link 'Home' url: http://x/",
        "\t[50] heading 'Cooking'",
        "\t[130] link 'Best pasta sauce?'",
        "\t[140] StaticText '12 comments'",
        "\t[70] searchbox 'Search' value: pasta required: False",
        `\t[80] button "Chef's pick"`,
      ].join('\n'),
    );
  });

  it('lists the shown elements with their DOM nodes, depth and properties', () => {
    const { elements } = flattenAxTree(forumTree);
    expect(elements.map((e) => e.role)).toEqual([
      'RootWebArea',
      'link',
      'heading',
      'link',
      'StaticText',
      'searchbox',
      'button',
    ]);
    expect(elements[5]).toEqual({
      id: 70,
      role: 'searchbox',
      name: 'Search',
      properties: { value: 'pasta', required: 'False' },
      backendNodeId: 70,
      depth: 1,
    });
  });

  it('options: keep what WebArena drops, hide values, indent with spaces', () => {
    const { text } = flattenAxTree(forumTree, {
      ignoredProperties: [],
      emptyRoles: [],
      withValue: false,
      cleanStaticText: false,
      skipRoles: [],
      ignoredRootProperties: [],
      indent: '  ',
    });
    expect(text).toContain('url: http://x/f/cooking');
    expect(text).toContain("  [30] generic ''");
    expect(text).toContain("[60] list ''");
    expect(text).toContain("[90] StaticText 'Home'");
    expect(text).toContain("[120] InlineTextBox 'Home'");
    expect(text).toContain('level: 1');
    expect(text).not.toContain('value: pasta');
  });

  it('dedupes StaticText already said by one of the three lines above, as WebArena does', () => {
    const { text } = flattenAxTree(forumTree);
    expect(text).not.toContain("StaticText 'Home'");
    expect(text).not.toContain("StaticText 'Best pasta sauce?'");
    expect(text).toContain("StaticText '12 comments'");
  });

  it('reads repeated nodes once and skips children missing from the list', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2', '99', '2']),
      node('2', 'button', 'Go'),
      node('2', 'button', 'Go'),
    ];
    expect(flattenAxTree(tree).text).toBe("[10] RootWebArea 'T'\n\t[20] button 'Go'");
  });

  it('nodes without role or name are skipped (ignored nodes), their children moved up', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2']),
      { nodeId: '2', ignored: false, childIds: ['3'] },
      node('3', 'link', 'a'),
    ];
    expect(flattenAxTree(tree).text).toBe("[10] RootWebArea 'T'\n\t[30] link 'a'");
    expect(flattenAxTree([]).text).toBe('');
  });

  it('with ElementIds: small ids in line order, the same for the same document', () => {
    const ids = new ElementIds();
    ids.begin(1);
    const first = flattenAxTree(forumTree, { idOf: ids.idOf });
    expect(first.elements.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // A new element appears before the others: old ids stay, the new one gets the next.
    const grown = [...forumTree];
    grown[0] = { ...forumTree[0], childIds: ['16', '2', '3'] } as AxNode;
    grown.push(node('16', 'button', 'Show more'));
    ids.begin(1);
    const second = flattenAxTree(grown, { idOf: ids.idOf });
    expect(second.text.split('\n')[1]).toBe("\t[8] button 'Show more'");
    expect(second.elements.slice(2).map((e) => e.id)).toEqual([2, 3, 4, 5, 6, 7]);
    // Another document: numbering starts again.
    const other = forumTree.map((n) => ({ ...n, backendDOMNodeId: (n.backendDOMNodeId ?? 0) + 1 }));
    ids.begin(2);
    expect(flattenAxTree(other, { idOf: ids.idOf }).elements[0]?.id).toBe(1);
  });
});

describe("flattenAxTree: WebArena's clean step, escaping and the viewport", () => {
  it('drops CSS-generated StaticText, empty StaticText and any other line mentioning "statictext"', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2', '3', '4', '6']),
      node('2', 'StaticText', '* ', [], { backendDOMNodeId: undefined }),
      node('3', 'StaticText', ''),
      node('4', 'link', 'StaticText tips', ['5']),
      node('5', 'StaticText', 'StaticText tips'),
      node('6', 'button', 'Go'),
    ];
    expect(flattenAxTree(tree).text).toBe(
      ["[10] RootWebArea 'T'", "\t\t[50] StaticText 'StaticText tips'", "\t[60] button 'Go'"].join(
        '\n',
      ),
    );
  });

  it('a virtual node is printed but does not indent its children, as in WebArena', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2']),
      node('2', 'ListMarker', '1. ', ['3'], { backendDOMNodeId: undefined }),
      node('3', 'button', 'Go'),
    ];
    expect(flattenAxTree(tree).text).toBe(
      ["[10] RootWebArea 'T'", "\t[-1] ListMarker '1. '", "\t[30] button 'Go'"].join('\n'),
    );
  });

  it('compares StaticText against whole lines only when asked (our small ids would match text)', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2', '3']),
      node('2', 'link', 'Next'),
      node('3', 'StaticText', '2'),
    ];
    const ids = (n: AxNode) => Number(n.nodeId);
    expect(flattenAxTree(tree, { idOf: ids }).text).toContain("[3] StaticText '2'");
    expect(flattenAxTree(tree, { idOf: ids, dedupeWithIds: true }).text).not.toContain(
      'StaticText',
    );
  });

  it('escapes values and property text, so every node stays on its line', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2']),
      node('2', 'textbox', 'Body', [], {
        value: { type: 'string', value: 'one\ntwo\u00a0\\' },
        props: { roledescription: 'multi\nline', focused: true },
      }),
    ];
    expect(flattenAxTree(tree).text.split('\n')[1]).toBe(
      "\t[20] textbox 'Body' value: one\\ntwo\\xa0\\\\ roledescription: multi\\nline focused: True",
    );
  });

  it('with a viewport: the root always, others by their box, children of hidden nodes move up', () => {
    const tree = [
      node('1', 'RootWebArea', 'T', ['2', '4', '5', '6']),
      node('2', 'navigation', 'Main', ['3']),
      node('3', 'link', 'Home'),
      node('4', 'link', 'Below'),
      node('5', 'link', 'Thin'),
      node('6', 'link', 'Unmeasured'),
    ];
    const rects = new Map([
      [20, { x: 0, y: -40, width: 1280, height: 30 }],
      [30, { x: 10, y: 2, width: 40, height: 19 }],
      [40, { x: 10, y: 730, width: 40, height: 19 }],
      [50, { x: 10, y: 100, width: 40, height: 0.7 }],
    ]);
    const { text } = flattenAxTree(tree, { viewport: { width: 1280, height: 720, rects } });
    expect(text).toBe(["[10] RootWebArea 'T'", "\t[30] link 'Home'"].join('\n'));
  });
});
