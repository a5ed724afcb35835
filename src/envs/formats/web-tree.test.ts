import { describe, expect, it } from 'vitest';
import { parseWebAction } from '../../experience/web/actions.ts';
import { parseNode, parseTree, quoteName, renderNode, renderTree } from './web-tree.ts';

const FORUM = `Tab 0 (current): Forum — Cooking
URL: http://127.0.0.1:41234/f/cooking

[1] RootWebArea 'Forum — Cooking' focused: True
\t[7] link 'Home'
\t[12] heading 'Cooking'
\t[15] searchbox 'Search' required: False
\t[16] button 'Search'
\t[20] link 'Best pasta sauce?'
\t\t[21] StaticText '12 comments'
\t[22] StaticText "Don't stir too often"
\t[23] generic`;

describe('accessibility-tree text', () => {
  it('parses tabs, URL and elements with depth, names and properties', () => {
    const tree = parseTree(FORUM);
    expect(tree?.tabs).toEqual([{ title: 'Forum — Cooking', current: true }]);
    expect(tree?.url).toBe('http://127.0.0.1:41234/f/cooking');
    expect(tree?.nodes).toHaveLength(9);
    expect(tree?.nodes[0]).toEqual({
      id: '1',
      role: 'RootWebArea',
      name: 'Forum — Cooking',
      props: [['focused', 'True']],
      depth: 0,
    });
    expect(tree?.nodes[3]?.props).toEqual([['required', 'False']]);
    expect(tree?.nodes[6]).toMatchObject({ role: 'StaticText', name: '12 comments', depth: 2 });
    expect(tree?.nodes[7]?.name).toBe("Don't stir too often");
    expect(tree?.nodes[8]).toMatchObject({ role: 'generic', name: undefined, props: [] });
  });

  it('renders a parsed page back to the same text', () => {
    expect(renderTree(parseTree(FORUM) as never)).toBe(FORUM);
    const tabs = `Tab 0: Post | Forum | Tab 1 (current): Shop\nURL: http://x/y?q=a b\n\n[1] RootWebArea 'Shop'\n\t[2] textbox 'Note' focused: True valuetext: 3 of 5`;
    const tree = parseTree(tabs);
    expect(tree?.tabLayout).toBe('inline');
    expect(tree?.tabs.map((t) => t.title)).toEqual(['Post | Forum', 'Shop']);
    expect(tree?.nodes[1]?.props).toEqual([
      ['focused', 'True'],
      ['valuetext', '3 of 5'],
    ]);
    expect(renderTree(tree as never)).toBe(tabs);
  });

  it('reads and writes the Error line after a failed navigation', () => {
    const failed =
      "Tab 0 (current): Forum\nURL: http://x/\nError: net::ERR_BLOCKED\n\n[1] RootWebArea 'Forum'";
    expect(parseTree(failed)?.error).toBe('net::ERR_BLOCKED');
    expect(renderTree(parseTree(failed) as never)).toBe(failed);
  });

  it('quotes names as Python repr does and reads them back', () => {
    for (const name of ["it's", 'say "hi"', `both ' and "`, 'back\\slash', 'two\nlines', '']) {
      const line = renderNode({ id: '3', role: 'StaticText', name, props: [], depth: 1 });
      expect(parseNode(line)?.name).toBe(name);
    }
    expect(quoteName("it's")).toBe(`"it's"`);
    expect(quoteName(`both ' and "`)).toBe(`'both \\' and "'`);
  });

  it('refuses text that is not a tree page', () => {
    expect(parseTree('WebShop\nInstruction:\nbuy a lamp\n[Search]')).toBeUndefined();
    expect(parseTree('Tab 0 (current): x\n\nnot an element')).toBeUndefined();
    expect(parseTree("Tab 0 (current): x\n\n[1] link 'unterminated")).toBeUndefined();
  });
});

describe('WebArena actions', () => {
  it('parses every action of the syntax', () => {
    expect(parseWebAction('click [12]')).toEqual({ kind: 'click', id: '12' });
    expect(parseWebAction('type [15] [pasta sauce] [0]')).toEqual({
      kind: 'type',
      id: '15',
      text: 'pasta sauce',
      enter: false,
    });
    expect(parseWebAction('type [15] [a [b] c]')).toMatchObject({ text: 'a [b] c', enter: true });
    expect(parseWebAction('scroll [down]')).toEqual({ kind: 'scroll', direction: 'down' });
    expect(parseWebAction('tab_focus [1]')).toEqual({ kind: 'tab_focus', index: 1 });
    expect(parseWebAction('goto [http://x/f/a]')).toEqual({ kind: 'goto', url: 'http://x/f/a' });
    expect(parseWebAction('go_back')).toEqual({ kind: 'go_back' });
    expect(parseWebAction('stop [12 comments]')).toEqual({ kind: 'stop', answer: '12 comments' });
    expect(parseWebAction('press [Control+a]')).toEqual({ kind: 'press', key: 'Control+a' });
    expect(parseWebAction('scroll [left]')).toBeUndefined();
    expect(parseWebAction('click[Buy Now]')).toBeUndefined();
    expect(parseWebAction('dance')).toBeUndefined();
  });
});
