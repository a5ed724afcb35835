import type { CDPSession } from 'playwright-core';
import type { AxNode, NodeRect } from './ax-tree.ts';

/**
 * The boxes WebArena's `current_viewport_only` filter reads: each node's `getBoundingClientRect()`
 * (a text node's through a `Range`), relative to the viewport. WebArena asks the page node by
 * node (two CDP calls each: seconds on a page of a thousand lines); we read the layout of the
 * whole page in one `DOMSnapshot.captureSnapshot` and ask the page only for the nodes the layout
 * does not hold (the text inside form fields, which lives in the browser's own shadow tree, and
 * nodes without layout). The two agree to Chromium's layout precision (1/64 px; tested).
 */

/**
 * Runs in the page over many nodes: each one's box as WebArena measures it, `[x, y, width,
 * height]`; null where that throws (a pseudo-element, a node of another kind).
 */
const RECTS = `function (...nodes) {
  return nodes.map((node) => {
    try {
      let rect;
      if (node.nodeType === 3) {
        const range = document.createRange();
        range.selectNode(node);
        rect = range.getBoundingClientRect();
        range.detach();
      } else {
        rect = node.getBoundingClientRect();
      }
      return [rect.x, rect.y, rect.width, rect.height];
    } catch {
      return null;
    }
  });
}`;

/** Nodes measured per call: one argument each, well under V8's limit on a call's arguments. */
const RECTS_PER_CALL = 500;

/** The part of a `DOMSnapshot.captureSnapshot` reply read here. */
export interface LayoutSnapshot {
  documents: Array<{
    nodes: { backendNodeId?: number[]; pseudoType?: { index: number[] } };
    layout: { nodeIndex: number[]; bounds: number[][] };
    scrollOffsetX?: number;
    scrollOffsetY?: number;
  }>;
}

/**
 * The main document's layout boxes by backend node id, moved from page to viewport coordinates;
 * a node laid out in several pieces gets their union (as `getBoundingClientRect` does, pieces
 * without area left out). `pseudo`: the ids of pseudo-elements, which WebArena cannot measure (its call
 * throws on them), so it never shows them.
 */
export function layoutRects(snapshot: LayoutSnapshot): {
  rects: Map<number, NodeRect>;
  pseudo: Set<number>;
} {
  const rects = new Map<number, NodeRect>();
  const pseudo = new Set<number>();
  const document = snapshot.documents[0];
  if (!document) return { rects, pseudo };
  const ids = document.nodes.backendNodeId ?? [];
  for (const index of document.nodes.pseudoType?.index ?? []) {
    const id = ids[index];
    if (id !== undefined) pseudo.add(id);
  }
  const dx = document.scrollOffsetX ?? 0;
  const dy = document.scrollOffsetY ?? 0;
  document.layout.nodeIndex.forEach((node, i) => {
    const id = ids[node];
    const [x, y, width, height] = document.layout.bounds[i] ?? [];
    if (id === undefined || x === undefined || y === undefined) return;
    const piece = { x: x - dx, y: y - dy, width: width ?? 0, height: height ?? 0 };
    const seen = rects.get(id);
    if (!seen || seen.width === 0 || seen.height === 0) rects.set(id, piece);
    else if (piece.width > 0 && piece.height > 0) rects.set(id, union(seen, piece));
  });
  return { rects, pseudo };
}

/**
 * The viewport boxes of the nodes a line could show (not ignored, with a role, a name and a DOM
 * node), by backend id: from the layout snapshot, the rest measured in the page in one call per
 * {@link RECTS_PER_CALL} nodes (each resolved first, the requests pipelined). A node that cannot
 * be measured is left out, which hides it, as in WebArena.
 */
export async function measureNodes(
  cdp: CDPSession,
  nodes: readonly AxNode[],
  objectGroup: string,
): Promise<Map<number, NodeRect>> {
  const snapshot = (await cdp.send('DOMSnapshot.captureSnapshot', {
    computedStyles: [],
  })) as LayoutSnapshot;
  const { rects, pseudo } = layoutRects(snapshot);
  const wanted = new Set<number>();
  for (const node of nodes) {
    const id = node.backendDOMNodeId;
    const printable =
      !node.ignored && typeof node.role?.value === 'string' && typeof node.name?.value === 'string';
    if (printable && id !== undefined && !rects.has(id) && !pseudo.has(id)) wanted.add(id);
  }
  const measured = new Map<number, NodeRect>();
  for (const [id, rect] of rects) if (!pseudo.has(id)) measured.set(id, rect);
  if (wanted.size === 0) return measured;
  try {
    const resolved = await Promise.all(
      [...wanted].map((backendNodeId) =>
        cdp
          .send('DOM.resolveNode', { backendNodeId, objectGroup })
          .then(({ object }) => ({ backendNodeId, objectId: object.objectId }))
          .catch(() => undefined),
      ),
    );
    const found = resolved.filter((r): r is { backendNodeId: number; objectId: string } =>
      Boolean(r?.objectId),
    );
    for (let start = 0; start < found.length; start += RECTS_PER_CALL) {
      const batch = found.slice(start, start + RECTS_PER_CALL);
      const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn', {
        objectId: (batch[0] as { objectId: string }).objectId,
        functionDeclaration: RECTS,
        arguments: batch.map(({ objectId }) => ({ objectId })),
        returnByValue: true,
      });
      if (exceptionDetails) continue;
      const boxes = result.value as Array<[number, number, number, number] | null>;
      batch.forEach(({ backendNodeId }, i) => {
        const box = boxes[i];
        if (box)
          measured.set(backendNodeId, { x: box[0], y: box[1], width: box[2], height: box[3] });
      });
    }
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => undefined);
  }
  return measured;
}

function union(a: NodeRect, b: NodeRect): NodeRect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}
