import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AxNode, type FlattenOptions, flattenAxTree, type NodeRect } from './ax-tree.ts';
import { ElementIds } from './element-ids.ts';

/**
 * Our flattening over saved CDP trees (parity/*.json, captured from Chromium) against texts
 * written by hand from WebArena's rules (parity/*.webarena.txt: `parse_accessibility_tree`,
 * `clean_accesibility_tree`, the `current_viewport_only` filter), in both viewport modes; and our
 * default text (parity/*.dreamgym.txt), which differs only as docs/web-observation.md lists.
 */

interface Fixture {
  description: string;
  viewport: { width: number; height: number };
  nodes: AxNode[];
  /** `[x, y, width, height]` by backend DOM node id, at the top of the page. */
  rects: Record<string, [number, number, number, number]>;
  /** The same after one `scroll [down]`. */
  scrolledRects?: Record<string, [number, number, number, number]>;
}

const read = (name: string) => readFileSync(new URL(`./parity/${name}`, import.meta.url), 'utf8');
const fixture = (page: string) => JSON.parse(read(`${page}.json`)) as Fixture;
const expected = (file: string) => read(file).replace(/\n$/, '');

/** What an observation measured, for the `viewport` option. */
const boxes = (page: Fixture, rects: Fixture['rects']) => ({
  ...page.viewport,
  rects: new Map<number, NodeRect>(
    Object.entries(rects).map(([id, [x, y, width, height]]) => [
      Number(id),
      { x, y, width, height },
    ]),
  ),
});

/**
 * WebArena's rendering through our options: AX node ids as printed ids, no `value:`, every role,
 * the root's url, StaticText compared with whole lines.
 */
const WEBARENA: FlattenOptions = {
  idOf: (node) => Number(node.nodeId),
  withValue: false,
  skipRoles: [],
  ignoredRootProperties: [],
  dedupeWithIds: true,
};

describe("the flattened tree against WebArena's text, on saved Chromium trees", () => {
  for (const page of ['form', 'forum']) {
    const saved = fixture(page);
    it(`${page}, whole document: WebArena's options reproduce its text line for line`, () => {
      expect(flattenAxTree(saved.nodes, WEBARENA).text).toBe(
        expected(`${page}.whole.webarena.txt`),
      );
    });
    it(`${page}, viewport only: WebArena's options reproduce its text line for line`, () => {
      const viewport = boxes(saved, saved.rects);
      expect(flattenAxTree(saved.nodes, { ...WEBARENA, viewport }).text).toBe(
        expected(`${page}.visible.webarena.txt`),
      );
    });
    it(`${page}: our default text, whole and viewport only`, () => {
      const whole = new ElementIds();
      whole.begin(1);
      expect(flattenAxTree(saved.nodes, { idOf: whole.idOf }).text).toBe(
        expected(`${page}.whole.dreamgym.txt`),
      );
      const visible = new ElementIds();
      visible.begin(1);
      const viewport = boxes(saved, saved.rects);
      expect(flattenAxTree(saved.nodes, { idOf: visible.idOf, viewport }).text).toBe(
        expected(`${page}.visible.dreamgym.txt`),
      );
    });
  }

  it('after a scroll the view shows other nodes; elements keep their ids, new ones take the next', () => {
    const saved = fixture('forum');
    const scrolled = boxes(saved, saved.scrolledRects as Fixture['rects']);
    expect(flattenAxTree(saved.nodes, { ...WEBARENA, viewport: scrolled }).text).toBe(
      expected('forum.visible-scrolled.webarena.txt'),
    );
    const ids = new ElementIds();
    ids.begin(1);
    flattenAxTree(saved.nodes, { idOf: ids.idOf, viewport: boxes(saved, saved.rects) });
    expect(flattenAxTree(saved.nodes, { idOf: ids.idOf, viewport: scrolled }).text).toBe(
      expected('forum.visible-scrolled.dreamgym.txt'),
    );
  });

  it("WebArena's viewport measure: a sliver in view is shown, a node under a pixel tall is not", () => {
    const saved = fixture('forum');
    const viewport = boxes(saved, saved.rects);
    // "Post 7" has 8.62 of its 19 px in view (45%, under WebArena's 0.6): shown all the same,
    // since WebArena's measure is overlap × height / width × height.
    expect(viewport.rects.get(34)).toEqual({ x: 48, y: 711.38, width: 48.75, height: 19 });
    expect(flattenAxTree(saved.nodes, { ...WEBARENA, viewport }).text).toContain(
      "[34] link 'Post 7'",
    );
    // The 0.5 px separator is shown in the whole document only.
    expect(flattenAxTree(saved.nodes, WEBARENA).text).toContain('[12] separator');
    expect(flattenAxTree(saved.nodes, { ...WEBARENA, viewport }).text).not.toContain('separator');
  });
});
