import type { CDPSession, Frame, Page } from 'playwright-core';
import { type AxNode, type FlatElement, type FlattenOptions, flattenAxTree } from './ax-tree.ts';
import { ElementIds } from './element-ids.ts';
import { measureNodes } from './node-rects.ts';

/** What an action needs to know about its target element (read when it is resolved). */
export interface TargetElement {
  /** Lower-case tag of the element acted on (a text node's parent; an option's select). */
  tag: string;
  /** The `type` attribute of an input, lower case; empty otherwise. */
  type: string;
  editable: boolean;
  /** Set when the id named an `<option>`: its index in the select that is acted on instead. */
  optionIndex: number;
  /** A link (or a form's button) whose target opens another tab. */
  opensTab: boolean;
  /** A select's option labels. */
  options: string[];
}

/** The element an action acts on, held in the page until released. */
export interface Target {
  element: TargetElement;
  /** Runs `fn` (a function declaration) in the page with the element as `this`. */
  call(fn: string, ...args: unknown[]): Promise<unknown>;
  /** Scrolls the element into view; the viewport point at its centre, or undefined when it has no box. */
  point(): Promise<{ x: number; y: number } | undefined>;
  release(): Promise<void>;
}

/** Runs in the page on the node an id names: the element acted on (a text node's parent; an option's select). */
const ELEMENT_OF = `function () {
  const element = this.nodeType === 1 ? this : this.parentElement;
  return element?.tagName === 'OPTION' && element.closest('select') ? element.closest('select') : element;
}`;

/** Runs in the page on the element acted on, given the node the id named: describes the element. */
const DESCRIBE = `function (node) {
  const tag = this.tagName.toLowerCase();
  const targeted = this.closest('a[target], area[target]') || this.form;
  const target = ((targeted && targeted.getAttribute('target')) || '').toLowerCase();
  return {
    tag,
    type: (this.getAttribute('type') || '').toLowerCase(),
    editable: this.isContentEditable,
    optionIndex: tag === 'select' && node !== this ? Array.prototype.indexOf.call(this.options, node) : -1,
    opensTab: !['', '_self', '_parent', '_top'].includes(target),
    options: tag === 'select' ? Array.from(this.options, (o) => o.label) : [],
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
  /** Object groups made so far (targets resolved, pages measured): names each one. */
  private targets = 0;
  private readonly onCrash = () => {
    this.crashed = true;
  };

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly mainFrameId: string,
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
    const { frameTree } = await cdp.send('Page.getFrameTree');
    return new BrowserTab(page, cdp, frameTree.frame.id);
  }

  /**
   * Captures the page's accessibility tree and flattens it; ids follow {@link ElementIds}. With
   * `viewport` (its size), only what is in view is shown: the nodes are measured right after the
   * tree is read, as WebArena's `current_viewport_only` does.
   */
  async tree(
    options: Omit<FlattenOptions, 'idOf' | 'viewport'>,
    viewport?: { width: number; height: number },
  ) {
    const { nodes } = (await this.cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
    const rects = viewport
      ? await measureNodes(this.cdp, nodes, `dreamgym-rects-${++this.targets}`)
      : undefined;
    this.ids.begin(this.documents);
    const flat = flattenAxTree(nodes, {
      ...options,
      idOf: this.ids.idOf,
      ...(viewport && rects && { viewport: { ...viewport, rects } }),
    });
    this.elements = new Map(flat.elements.map((element) => [element.id, element]));
    return flat;
  }

  /**
   * Resolves the element behind `id` in the page (held until {@link Target.release}) and describes
   * it; a string says why it cannot be acted on. Works through CDP alone: Playwright's locators
   * would inject its ≈ 350 KB script into every document acted in.
   */
  async target(id: number): Promise<Target | { problem: string }> {
    const element = this.elements.get(id);
    if (!element) return { problem: `there is no element [${id}] on this page` };
    if (element.backendNodeId === undefined) {
      return { problem: `element [${id}] (${element.role}) is not a DOM element to act on` };
    }
    const objectGroup = `dreamgym-target-${++this.targets}`;
    const release = async () => {
      await this.cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => undefined);
    };
    let node: string | undefined;
    try {
      const resolved = await this.cdp.send('DOM.resolveNode', {
        backendNodeId: element.backendNodeId,
        objectGroup,
      });
      node = resolved.object.objectId;
    } catch {
      node = undefined;
    }
    if (!node) return { problem: `element [${id}] is no longer on the page` };
    try {
      return await this.describe(id, node, objectGroup, release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** {@link target}'s second half: the element acted on for `node`, described, with its handles. */
  private async describe(
    id: number,
    node: string,
    objectGroup: string,
    release: () => Promise<void>,
  ): Promise<Target | { problem: string }> {
    const { result } = await this.cdp.send('Runtime.callFunctionOn', {
      objectId: node,
      functionDeclaration: ELEMENT_OF,
      objectGroup,
    });
    const objectId = result.objectId;
    if (!objectId) {
      await release();
      return { problem: `element [${id}] is not inside an element of the page` };
    }
    const call = async (functionDeclaration: string, ...args: unknown[]) =>
      runtimeValue(
        await this.cdp.send('Runtime.callFunctionOn', {
          objectId,
          functionDeclaration,
          arguments: args.map((value) => ({ value })),
          returnByValue: true,
          awaitPromise: true,
        }),
      );
    const described = await this.cdp.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: DESCRIBE,
      arguments: [{ objectId: node }],
      returnByValue: true,
    });
    const point = async () => {
      await this.cdp.send('DOM.scrollIntoViewIfNeeded', { objectId }).catch(() => undefined);
      const { quads } = await this.cdp.send('DOM.getContentQuads', { objectId });
      const [quad] = quads.filter((q) => area(q) > 0.99);
      if (!quad) return undefined;
      let x = 0;
      let y = 0;
      for (let i = 0; i < 4; i++) {
        x += (quad[2 * i] as number) / 4;
        y += (quad[2 * i + 1] as number) / 4;
      }
      return { x, y };
    };
    return { element: described.result.value as TargetElement, call, point, release };
  }

  /**
   * Runs an input (a click, a key press) and, when it starts a navigation of this tab, waits for
   * the navigation to commit (or stop); 'timeout' when the input and its navigation did not finish
   * within `timeoutMs`. A form submits, and a script may navigate, a task after the input: one
   * round trip through the page's task queue lets those start before deciding that nothing is
   * navigating.
   */
  async input(act: () => Promise<void>, timeoutMs: number): Promise<'timeout' | undefined> {
    let requested = false;
    let settle: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    // A navigation of this tab's main frame (not one a link opens in another tab).
    const onRequested = ({ frameId, disposition }: { frameId: string; disposition?: string }) => {
      if (frameId === this.mainFrameId && (disposition ?? 'currentTab') === 'currentTab') {
        requested = true;
      }
    };
    // Committed as Playwright sees it (so its load state follows the new document), or stopped
    // without committing (a 204, a download, a cancelled navigation).
    const onCommitted = (frame: Frame) => {
      if (frame === this.page.mainFrame()) settle();
    };
    const onStopped = ({ frameId }: { frameId: string }) => {
      if (frameId === this.mainFrameId) settle();
    };
    this.cdp.on('Page.frameRequestedNavigation', onRequested);
    this.cdp.on('Page.frameStartedLoading', onRequested);
    this.cdp.on('Page.frameStoppedLoading', onStopped);
    this.page.on('framenavigated', onCommitted);
    const acted = async () => {
      await act();
      if (!requested) {
        await this.evaluate('new Promise((resolve) => setTimeout(resolve, 0))').catch(() => {
          requested = true; // the document went away meanwhile
        });
      }
      if (requested) await settled;
      return undefined;
    };
    try {
      // A page that hangs (a busy script) holds the input or the round trip: the timeout ends it.
      return await Promise.race([acted(), late]);
    } finally {
      clearTimeout(timer);
      this.cdp.off('Page.frameRequestedNavigation', onRequested);
      this.cdp.off('Page.frameStartedLoading', onRequested);
      this.cdp.off('Page.frameStoppedLoading', onStopped);
      this.page.off('framenavigated', onCommitted);
    }
  }

  /** Evaluates `expression` in the page's main world (no Playwright script injected). */
  async evaluate(expression: string): Promise<unknown> {
    return runtimeValue(
      await this.cdp.send('Runtime.evaluate', {
        expression,
        returnByValue: true,
        awaitPromise: true,
      }),
    );
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

/** A `Runtime` call's value, or its exception thrown as an error. */
function runtimeValue(reply: {
  result: { value?: unknown };
  exceptionDetails?: { text: string; exception?: { description?: string } };
}): unknown {
  const { result, exceptionDetails } = reply;
  if (exceptionDetails) {
    throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  }
  return result.value;
}

/** The area of a quad (four corner points, clockwise or not). */
function area(quad: number[]): number {
  let sum = 0;
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    sum += (quad[2 * i] as number) * (quad[2 * j + 1] as number);
    sum -= (quad[2 * j] as number) * (quad[2 * i + 1] as number);
  }
  return Math.abs(sum) / 2;
}
