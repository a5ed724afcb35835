import type { CDPSession } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { AxNode } from './ax-tree.ts';
import { layoutRects, measureNodes } from './node-rects.ts';
import { acquireSharedBrowser } from './shared-browser.ts';

describe('layoutRects', () => {
  it('moves boxes to the viewport, unites pieces with area, marks pseudo-elements', () => {
    const { rects, pseudo } = layoutRects({
      documents: [
        {
          nodes: { backendNodeId: [1, 7, 9, 11], pseudoType: { index: [3] } },
          layout: {
            nodeIndex: [0, 1, 2, 2, 2, 3],
            bounds: [
              [0, 0, 1280, 2000],
              [10, 300, 50, 20],
              [10, 400, 100, 20],
              [0, 0, 0, 0],
              [5, 420, 40, 20],
              [30, 500, 7, 19],
            ],
          },
          scrollOffsetX: 0,
          scrollOffsetY: 250,
        },
      ],
    });
    expect(rects.get(7)).toEqual({ x: 10, y: 50, width: 50, height: 20 });
    expect(rects.get(9)).toEqual({ x: 5, y: 150, width: 105, height: 40 });
    expect([...pseudo]).toEqual([11]);
    expect(layoutRects({ documents: [] }).rects.size).toBe(0);
  });
});

describe('measureNodes on a real Chromium (the shared browser; a missing one fails with the fix)', () => {
  const lease = acquireSharedBrowser();
  afterAll(() => lease.release());

  it("gives every node WebArena's getBoundingClientRect, to layout precision", async () => {
    const browser = await lease.browser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    try {
      const page = await context.newPage();
      await page.setContent(`<!doctype html><html><head><style>.x::before { content: "gen " }</style></head><body>
<ol><li>One <a href="#">link</a></li><li>Two</li></ol>
<p style="transform: rotate(10deg) scale(1.5)">Rotated <b>bold</b> text</p>
<span>inline <a href="#">a link <div>with a block</div> that wraps</a> more</span>
<div style="overflow: auto; height: 50px"><p>a</p><p>b</p><p>c</p><p>scrolled inside</p></div>
<label>Name <input value="typed"></label><textarea aria-label="Body">one
two</textarea><select aria-label="Pick"><option>A</option><option selected>B</option></select>
<p class="x">generated</p><p style="visibility: hidden">invisible</p>
<div style="position: fixed; top: 600px">fixed</div><div style="height: 3000px">tall</div><p>end</p>
</body></html>`);
      await page.evaluate('window.scrollTo(0, 150)');
      const cdp = await context.newCDPSession(page);
      const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
      const ours = await measureNodes(cdp, nodes, 'test-rects');
      let compared = 0;
      for (const node of nodes) {
        const id = node.backendDOMNodeId;
        const printable = !node.ignored && typeof node.name?.value === 'string';
        if (!printable || id === undefined || node.role?.value === 'RootWebArea') continue;
        const theirs = await webarenaRect(cdp, id);
        const rect = ours.get(id);
        const label = `${node.role?.value} ${JSON.stringify(node.name?.value)}`;
        if (theirs === null) {
          expect(rect, label).toBeUndefined();
          continue;
        }
        expect(rect, label).toBeDefined();
        const got = [rect?.x, rect?.y, rect?.width, rect?.height] as number[];
        for (const [i, value] of got.entries()) {
          expect(value, label).toBeCloseTo(theirs[i] as number, 1);
        }
        compared += 1;
      }
      expect(compared).toBeGreaterThan(25);
    } finally {
      await context.close();
    }
  });
});

/** WebArena's own measure of one node: resolve it, call getBoundingClientRect (a Range for text). */
async function webarenaRect(cdp: CDPSession, backendNodeId: number): Promise<number[] | null> {
  try {
    const { object } = await cdp.send('DOM.resolveNode', { backendNodeId });
    const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn', {
      objectId: object.objectId as string,
      functionDeclaration: `function () {
        let rect;
        if (this.nodeType === 3) {
          const range = document.createRange();
          range.selectNode(this);
          rect = range.getBoundingClientRect();
        } else {
          rect = this.getBoundingClientRect();
        }
        return [rect.x, rect.y, rect.width, rect.height];
      }`,
      returnByValue: true,
    });
    return exceptionDetails ? null : (result.value as number[]);
  } catch {
    return null;
  }
}
