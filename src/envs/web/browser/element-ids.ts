import type { AxNode } from './ax-tree.ts';

/**
 * Element ids for one tab: small integers handed out in line order the first time a node is shown,
 * kept for as long as the document lives, and started again from 1 when the tab shows a new
 * document. So the same page content gets the same ids in every episode (the replay buffer and the
 * synthetic env learn from these texts), and an element keeps its id across the observations of
 * one page view while new elements get fresh ones.
 *
 * Nodes are keyed by Chromium's backend DOM node id, which is stable for a node's lifetime but not
 * across documents or renderer processes (which is why WebArena's printed ids change from episode
 * to episode); we print our own numbers and keep the backend id only to act on the node. Backend
 * ids of two documents in two processes can coincide (a document node is often 1), so the caller
 * names the document: a counter of main-frame navigations, back/forward cache restores included.
 */
export class ElementIds {
  private documentKey: string | number | undefined;
  private next = 1;
  private readonly byBackend = new Map<number, number>();
  /** Virtual nodes (no DOM node, e.g. CSS-generated text) by their AX node id. */
  private readonly byAxNode = new Map<string, number>();

  /**
   * Starts an observation of the document named `documentKey`: a different key than last time
   * means a new document, so numbering starts again.
   */
  begin(documentKey: string | number): void {
    const key = documentKey;
    if (key === this.documentKey) return;
    this.documentKey = key;
    this.next = 1;
    this.byBackend.clear();
    this.byAxNode.clear();
  }

  /** The id of `node`, allocated now if it is new. */
  idOf = (node: AxNode): number => {
    const backend = node.backendDOMNodeId;
    if (backend === undefined) {
      let id = this.byAxNode.get(node.nodeId);
      if (id === undefined) {
        id = this.next++;
        this.byAxNode.set(node.nodeId, id);
      }
      return id;
    }
    let id = this.byBackend.get(backend);
    if (id === undefined) {
      id = this.next++;
      this.byBackend.set(backend, id);
    }
    return id;
  };
}
