import type { CDPSession, Page } from 'playwright-core';
import { type AxNode, type FlatElement, type FlattenOptions, flattenAxTree } from './ax-tree.ts';
import { ElementIds } from './element-ids.ts';

/** The attribute that marks the one element an action targets, so a Playwright locator finds it. */
export const TARGET_ATTRIBUTE = 'data-dreamgym-target';

/** What an action needs to know about its target element (read when it is marked). */
export interface MarkedElement {
  /** Lower-case tag of the element acted on (a text node's parent; an option's select). */
  tag: string;
  /** The `type` attribute of an input, lower case; empty otherwise. */
  type: string;
  editable: boolean;
  /** Set when the id named an `<option>`: its index in the select that was marked instead. */
  optionIndex: number;
  /** A link (or a form's button) whose target opens another tab. */
  opensTab: boolean;
  /** A select's option labels. */
  options: string[];
}

/**
 * Runs in the page on the node an id names: marks it (a text node's parent element; an option's
 * select) with {@link TARGET_ATTRIBUTE} after unmarking any earlier target, and describes it.
 */
const MARK = `function (attribute) {
  for (const old of document.querySelectorAll('[' + attribute + ']')) old.removeAttribute(attribute);
  let element = this.nodeType === 1 ? this : this.parentElement;
  if (!element) return null;
  let optionIndex = -1;
  if (element.tagName === 'OPTION' && element.closest('select')) {
    const select = element.closest('select');
    optionIndex = Array.prototype.indexOf.call(select.options, element);
    element = select;
  }
  element.setAttribute(attribute, '');
  const tag = element.tagName.toLowerCase();
  const targeted = element.closest('a[target], area[target]') || element.form;
  const target = ((targeted && targeted.getAttribute('target')) || '').toLowerCase();
  return {
    tag,
    type: (element.getAttribute('type') || '').toLowerCase(),
    editable: element.isContentEditable,
    optionIndex,
    opensTab: !['', '_self', '_parent', '_top'].includes(target),
    options: tag === 'select' ? Array.from(element.options, (o) => o.label) : [],
  };
}`;

/**
 * One tab of an episode: its page, a CDP session to read the accessibility tree, the element ids
 * of the document it shows, and the elements of its last observation.
 */
export class BrowserTab {
  readonly ids = new ElementIds();
  private elements = new Map<number, FlatElement>();
  /** Main-frame documents shown so far: names the document for {@link ElementIds}. */
  private documents = 0;
  /** Origins of the documents (any frame) this tab has shown: whose storage a reused context clears. */
  readonly origins = new Set<string>();
  crashed = false;
  private readonly onCrash = () => {
    this.crashed = true;
  };

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
  ) {
    page.on('crash', this.onCrash);
    // Fires on every new main-frame document (back/forward cache restores too), not on
    // same-document navigations (pushState, #hash): those keep their ids.
    cdp.on('Page.frameNavigated', ({ frame }) => {
      if (!frame.parentId) this.documents += 1;
      if (frame.securityOrigin?.startsWith('http')) this.origins.add(frame.securityOrigin);
    });
  }

  static async open(page: Page): Promise<BrowserTab> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Page.enable');
    return new BrowserTab(page, cdp);
  }

  /** Captures the page's accessibility tree and flattens it; ids follow {@link ElementIds}. */
  async tree(options: Omit<FlattenOptions, 'idOf'>) {
    const { nodes } = (await this.cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
    this.ids.begin(this.documents);
    const flat = flattenAxTree(nodes, { ...options, idOf: this.ids.idOf });
    this.elements = new Map(flat.elements.map((element) => [element.id, element]));
    return flat;
  }

  /** An element of the last observation. */
  element(id: number): FlatElement | undefined {
    return this.elements.get(id);
  }

  /**
   * Marks the element behind `id` for a locator (`[data-dreamgym-target]`) and describes it; a
   * string says why it cannot be acted on. `unmark` removes the mark again (best effort: the page
   * may have navigated away).
   */
  async mark(
    id: number,
  ): Promise<{ element: MarkedElement; unmark: () => Promise<void> } | { problem: string }> {
    const element = this.elements.get(id);
    if (!element) return { problem: `there is no element [${id}] on this page` };
    if (element.backendNodeId === undefined) {
      return { problem: `element [${id}] (${element.role}) is not a DOM element to act on` };
    }
    let objectId: string | undefined;
    try {
      const resolved = await this.cdp.send('DOM.resolveNode', {
        backendNodeId: element.backendNodeId,
      });
      objectId = resolved.object.objectId;
    } catch {
      objectId = undefined;
    }
    if (!objectId) return { problem: `element [${id}] is no longer on the page` };
    const { result } = await this.cdp.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: MARK,
      arguments: [{ value: TARGET_ATTRIBUTE }],
      returnByValue: true,
    });
    const marked = result.value as MarkedElement | null;
    const release = async () => {
      await this.cdp
        .send('Runtime.callFunctionOn', {
          objectId: objectId as string,
          functionDeclaration: `function (attribute) {
            const element = this.nodeType === 1 ? this : this.parentElement;
            (element?.tagName === 'OPTION' ? element.closest('select') : element)?.removeAttribute(attribute);
          }`,
          arguments: [{ value: TARGET_ATTRIBUTE }],
        })
        .catch(() => undefined);
      await this.cdp
        .send('Runtime.releaseObject', { objectId: objectId as string })
        .catch(() => {});
    };
    if (!marked) {
      await release();
      return { problem: `element [${id}] is not inside an element of the page` };
    }
    return { element: marked, unmark: release };
  }

  /** Stops a navigation still loading (after a timeout), so the tab shows what it has. */
  async stopLoading(): Promise<void> {
    await this.cdp.send('Page.stopLoading').catch(() => undefined);
  }

  /** Stops following the page (its listener and CDP session); the page itself stays open. */
  async detach(): Promise<void> {
    this.page.off('crash', this.onCrash);
    await this.cdp.detach().catch(() => undefined);
  }
}
