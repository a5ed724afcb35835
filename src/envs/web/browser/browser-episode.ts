import { existsSync } from 'node:fs';
import type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  Page,
  Request,
} from 'playwright-core';
import { DreamGymError } from '../../../core/errors.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import type { WebAction } from './action.ts';
import type { FlattenOptions } from './ax-tree.ts';
import { BrowserTab, type Target } from './browser-tab.ts';
import { admissibleActions, renderObservation } from './observation.ts';

/** The browser went away during an episode (crashed or closed from outside). */
export class BrowserCrashedError extends DreamGymError {
  override name = 'BrowserCrashedError';
}

/** Timing and rendering knobs of an episode. */
export interface EpisodeOptions {
  /** A navigation (goto, a click that loads a page, back/forward) may take this long. */
  navigationTimeoutMs: number;
  /** Waiting for an element to become visible, enabled and still before acting on it. */
  actionTimeoutMs: number;
  /** The window's size; WebArena's default is 1280×720. */
  viewportSize: { width: number; height: number };
  /** What the observation shows: the whole document, or only what is in the viewport. */
  viewport: ViewportMode;
  /** How the tree is flattened (ids are always the episode's own; the viewport as above). */
  flatten: Omit<FlattenOptions, 'idOf' | 'viewport'>;
}

/**
 * What an observation shows: `whole`, the whole document (WebArena's `current_viewport_only`
 * off); `visible`, only what is in the viewport (on, as WebArena's experiments run), so `scroll`
 * changes what the agent sees.
 */
export type ViewportMode = 'whole' | 'visible';

/** What running one action did. */
export interface ActionOutcome {
  /** Set when the action could not be applied: why. */
  invalid?: string;
  /** The page was not touched (the action was refused before it ran): nothing to observe anew. */
  untouched?: boolean;
}

/** A navigation the page itself cancelled (a 204, a download, a newer navigation): no failure. */
const ABORTED = 'net::ERR_ABORTED';

/** WebArena joins several start URLs (one tab each) with this. */
const START_URL_SEPARATOR = ' |AND| ';

const INPUT_TYPES_NOT_TYPED = new Set([
  'checkbox',
  'radio',
  'submit',
  'button',
  'reset',
  'image',
  'file',
  'hidden',
  'range',
  'color',
]);

/**
 * One episode in the browser: its own context (cookies, storage, tabs), the tabs' element ids, and
 * how each {@link WebAction} (except `stop`, which the env handles) runs there. A navigation that
 * fails or times out is shown in the next observation's `Error:` line, never thrown.
 */
export class BrowserEpisode {
  private readonly tabs = new Map<Page, BrowserTab>();
  private current: Page;
  private pendingError: string | undefined;

  private constructor(
    readonly context: BrowserContext,
    first: Page,
    private readonly allowedOrigins: ReadonlySet<string>,
    private readonly options: EpisodeOptions,
  ) {
    this.current = first;
  }

  /**
   * Opens a context, lets `prepare` set it up (headers, logins), loads the config's `storage_state`
   * when its file exists (else names the problem in `warnings`), and opens the start URL(s).
   */
  static async start(
    browser: Browser,
    config: WebArenaConfig,
    urls: Readonly<Record<string, string>>,
    prepare: (context: BrowserContext) => Promise<void>,
    options: EpisodeOptions,
    contextOptions: Pick<BrowserContextOptions, 'proxy'> = {},
  ): Promise<{ episode: BrowserEpisode; warnings: string[] }> {
    const warnings: string[] = [];
    const storageState = config.storage_state ?? undefined;
    let useState: string | undefined;
    if (storageState) {
      if (existsSync(storageState)) useState = storageState;
      else {
        warnings.push(
          `storage_state ${storageState} does not exist; started without it (the site provider's login hook, if any, logged in).`,
        );
      }
    }
    const context = await browser.newContext({
      ...contextOptions,
      viewport: options.viewportSize,
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
      serviceWorkers: 'block',
      ...(useState !== undefined && { storageState: useState }),
    });
    try {
      context.setDefaultNavigationTimeout(options.navigationTimeoutMs);
      context.setDefaultTimeout(options.actionTimeoutMs);
      const episode = await BrowserEpisode.begin(
        context,
        undefined,
        config,
        urls,
        prepare,
        options,
      );
      return { episode, warnings };
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Starts the next episode in `previous`'s context instead of a new one, which saves most of an
   * episode's browser work (a new context and tab cost ≈ 0.5 CPU-seconds in Chromium, several
   * steps' worth). The context is cleaned first, so the episode sees what a fresh context would:
   * every tab but one closed, that tab's session storage cleared, cookies, the HTTP cache and the
   * storage (local, IndexedDB, caches) of every origin the previous episode showed cleared, extra
   * headers dropped, the tab's history reset to about:blank as a new tab's; then `prepare` and the
   * start URL(s) as in {@link start}. Not for a config with a `storage_state` (that needs a
   * new context). Returns undefined when no tab can be kept (every tab closed or crashed, or the
   * kept one showed more than one origin: its session storage could not all be cleared); throws
   * when the browser is gone.
   */
  static async reuse(
    previous: BrowserEpisode,
    config: WebArenaConfig,
    urls: Readonly<Record<string, string>>,
    prepare: (context: BrowserContext) => Promise<void>,
    options: EpisodeOptions,
  ): Promise<BrowserEpisode | undefined> {
    previous.assertConnected();
    const { context } = previous;
    const pages = context.pages();
    const keep = pages.find((page) => !page.isClosed() && !previous.tabs.get(page)?.crashed);
    if (!keep) return undefined;
    // Session storage lives in the tab, per origin, and can be cleared only from a document of
    // that origin: a tab that showed more than the origin it shows now needs a new context.
    const shown = previous.tabs.get(keep)?.origins ?? new Set<string>();
    const here = originOf(keep.url());
    if ([...shown].some((origin) => origin !== here)) return undefined;
    const origins = new Set(previous.allowedOrigins);
    for (const tab of previous.tabs.values()) for (const origin of tab.origins) origins.add(origin);
    for (const page of pages) {
      const origin = originOf(page.url());
      if (origin) origins.add(origin);
    }
    await previous.close({ keep });
    const cdp = await context.newCDPSession(keep);
    try {
      if (here) {
        await cdp
          .send('Runtime.evaluate', { expression: 'sessionStorage.clear()' })
          .catch(() => undefined);
      }
      await keep.goto('about:blank');
      // As in a new tab, about:blank is all the history there is (`go_back` from the start URL
      // leads there, as in a new context).
      await cdp.send('Page.resetNavigationHistory');
      await cdp.send('Network.clearBrowserCache');
      for (const origin of origins) {
        await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      }
    } finally {
      await cdp.detach().catch(() => undefined);
    }
    await context.clearCookies();
    await context.setExtraHTTPHeaders({});
    return BrowserEpisode.begin(context, keep, config, urls, prepare, options);
  }

  /** Prepares `context` and opens the config's start URL(s), the first in `tab` (else a new tab). */
  private static async begin(
    context: BrowserContext,
    tab: Page | undefined,
    config: WebArenaConfig,
    urls: Readonly<Record<string, string>>,
    prepare: (context: BrowserContext) => Promise<void>,
    options: EpisodeOptions,
  ): Promise<BrowserEpisode> {
    await prepare(context);
    const first = tab ?? (await context.newPage());
    const origins = new Set<string>();
    for (const url of Object.values(urls)) {
      const origin = originOf(url);
      if (origin) origins.add(origin);
    }
    const starts = config.start_url.split(START_URL_SEPARATOR).map((url) => url.trim());
    for (const url of starts) {
      const origin = originOf(url);
      if (origin) origins.add(origin);
    }
    const episode = new BrowserEpisode(context, first, origins, options);
    await episode.adopt(first);
    for (const [i, url] of starts.entries()) {
      const page = i === 0 ? first : await context.newPage();
      if (i > 0) await episode.adopt(page);
      episode.current = page;
      await episode.navigate(() => page.goto(url), url);
    }
    episode.current = first;
    await first.bringToFront();
    return episode;
  }

  /** The current tab's page. */
  get page(): Page {
    return this.current;
  }

  /** The observation text and admissible actions of the current tab. */
  async observe(): Promise<{ text: string; actions: string[] }> {
    this.assertConnected();
    const pages = this.context.pages();
    const tab = await this.adopt(this.current);
    let tree = '';
    let elements: Parameters<typeof admissibleActions>[0] = [];
    let rootTitle: string | undefined;
    let error = this.pendingError;
    this.pendingError = undefined;
    if (tab.crashed) {
      error = 'the page crashed; go_back, goto [url] or close_tab';
    } else {
      try {
        const shown = this.options.viewport === 'visible' ? this.options.viewportSize : undefined;
        const flat = await withTimeout(
          tab.tree(this.options.flatten, shown),
          this.options.navigationTimeoutMs,
          'reading the page',
        );
        tree = flat.text;
        elements = flat.elements;
        if (flat.elements[0]?.role === 'RootWebArea') rootTitle = flat.elements[0].name;
      } catch (problem) {
        this.assertConnected();
        error = `the page could not be read (${firstLine(problem)})`;
      }
    }
    const current = pages.indexOf(this.current);
    // The tree's root is named by the document title: one round trip less for the current tab.
    const titles = await Promise.all(
      pages.map((page, i) =>
        i === current && rootTitle !== undefined
          ? rootTitle
          : withTimeout(page.title(), this.options.actionTimeoutMs, 'title').catch(() => ''),
      ),
    );
    const text = renderObservation(
      { tabTitles: titles, current, url: this.current.url(), ...(error && { error }) },
      tree,
    );
    return { text, actions: admissibleActions(elements, { count: pages.length, current }) };
  }

  /** Runs one action (not `stop`). */
  async run(action: Exclude<WebAction, { kind: 'stop' }>): Promise<ActionOutcome> {
    this.assertConnected();
    try {
      return await this.dispatch(action);
    } catch (error) {
      this.assertConnected();
      if (this.current.isClosed()) {
        // The page closed itself (window.close()): carry on in the last tab.
        this.current = this.context.pages().at(-1) ?? (await this.context.newPage());
      } else if (/browser has been closed|Target closed/i.test(firstLine(error))) {
        // The browser died and Playwright has not noticed the disconnect yet.
        throw new BrowserCrashedError(CRASHED);
      }
      return { invalid: `${action.kind} failed: ${firstLine(error)}` };
    }
  }

  /**
   * Closes the context (every tab). Idempotent. With `keep`, closes every tab but that one and
   * leaves the context open, for {@link reuse}.
   */
  async close({ keep }: { keep?: Page } = {}): Promise<void> {
    for (const tab of this.tabs.values()) await tab.detach();
    this.tabs.clear();
    if (!keep) {
      await this.context.close().catch(() => undefined);
      return;
    }
    for (const page of this.context.pages()) {
      if (page !== keep) await page.close().catch(() => undefined);
    }
  }

  private async dispatch(action: Exclude<WebAction, { kind: 'stop' }>): Promise<ActionOutcome> {
    const page = this.current;
    switch (action.kind) {
      case 'click':
      case 'hover':
      case 'type':
        return this.onElement(action);
      case 'press':
        // Keys go to the focused element, as a person's would.
        return this.afterInput(() => page.keyboard.press(action.keys));
      case 'scroll': {
        const sign = action.direction === 'down' ? '+' : '-';
        await (await this.adopt(page)).evaluate(
          `(document.scrollingElement || document.body).scrollTop = (document.scrollingElement || document.body).scrollTop ${sign} window.innerHeight;`,
        );
        return {};
      }
      case 'new_tab': {
        const opened = await this.context.newPage();
        await this.adopt(opened);
        this.current = opened;
        return {};
      }
      case 'tab_focus': {
        const pages = this.context.pages();
        const target = pages[action.index];
        if (!target) {
          return {
            invalid: `there is no tab ${action.index}; open tabs: 0..${pages.length - 1}`,
            untouched: true,
          };
        }
        this.current = target;
        await target.bringToFront();
        return {};
      }
      case 'close_tab': {
        const closing = this.current;
        this.tabs.get(closing)?.detach();
        this.tabs.delete(closing);
        await closing.close();
        const last = this.context.pages().at(-1);
        this.current = last ?? (await this.context.newPage());
        await this.adopt(this.current);
        await this.current.bringToFront();
        return {};
      }
      case 'goto': {
        const url = this.resolveUrl(action.url);
        if (typeof url !== 'string') return url;
        await this.navigate(() => page.goto(url), url);
        return {};
      }
      case 'go_back':
        await this.navigate(() => page.goBack(), 'the previous page');
        return {};
      case 'go_forward':
        await this.navigate(() => page.goForward(), 'the next page');
        return {};
    }
  }

  private async onElement(
    action: Extract<WebAction, { kind: 'click' | 'hover' | 'type' }>,
  ): Promise<ActionOutcome> {
    const tab = await this.adopt(this.current);
    const target = await tab.target(action.id);
    if ('problem' in target) {
      return { invalid: `${target.problem}; use an id from the page.`, untouched: true };
    }
    const { mouse } = this.current;
    // No actionability wait (as WebArena, which clicks coordinates): the id came from the live
    // tree. A target without a box (hidden) fails.
    const pointAt = async () => {
      const point = await target.point();
      if (!point) throw new Error(`element [${action.id}] is not visible`);
      return point;
    };
    try {
      if (action.kind === 'hover') {
        const { x, y } = await pointAt();
        await mouse.move(x, y);
        return {};
      }
      if (action.kind === 'click') {
        if (target.element.optionIndex >= 0) {
          const index = target.element.optionIndex;
          return await this.afterInput(() => selectIndex(target, index));
        }
        return await this.afterInput(async () => {
          // The new tab's page reaches us a moment after the click returns.
          const popup = target.element.opensTab
            ? this.context.waitForEvent('page', { timeout: this.options.actionTimeoutMs })
            : undefined;
          popup?.catch(() => undefined);
          const { x, y } = await pointAt();
          await mouse.click(x, y);
          await popup?.catch(() => undefined);
        });
      }
      return await this.typeInto(target, action);
    } finally {
      await target.release();
    }
  }

  private async typeInto(
    target: Target,
    action: Extract<WebAction, { kind: 'type' }>,
  ): Promise<ActionOutcome> {
    const { element } = target;
    if (element.tag === 'select') {
      const wanted = action.text.trim().toLowerCase();
      const index = element.options.findIndex((label) => label.trim().toLowerCase() === wanted);
      if (index < 0) {
        return {
          invalid: `element [${action.id}] is a select without the option "${action.text}"; its options: ${element.options.join(', ')}`,
          untouched: true,
        };
      }
      return this.afterInput(() => selectIndex(target, index));
    }
    const textField =
      element.editable ||
      element.tag === 'textarea' ||
      (element.tag === 'input' && !INPUT_TYPES_NOT_TYPED.has(element.type));
    if (!textField) {
      const what = element.tag === 'input' ? `a ${element.type} input` : `a <${element.tag}>`;
      return {
        invalid: `element [${action.id}] is ${what}, not a text field; click it instead`,
        untouched: true,
      };
    }
    const { keyboard } = this.current;
    return this.afterInput(async () => {
      if ((await target.call(PREPARE_FILL, action.text)) === 'select') {
        if (action.text === '') await keyboard.press('Delete');
        else await keyboard.insertText(action.text);
      }
      if (action.pressEnter) await keyboard.press('Enter');
    });
  }

  /**
   * Runs an input action, then settles: a tab it opened becomes current (as in WebArena), and the
   * page it navigated to must finish loading within the navigation timeout (else loading stops
   * and the next observation says so).
   */
  private async afterInput(input: () => Promise<void>): Promise<ActionOutcome> {
    const before = new Set(this.context.pages());
    const tab = await this.adopt(this.current);
    // A page that failed to load (a refused connection) shows Chromium's error page, whose text
    // the headless shell leaves empty: the observation's Error line says what failed, in either.
    const onFailed = (request: Request) => {
      const errorText = request.failure()?.errorText;
      if (!request.isNavigationRequest() || request.frame().parentFrame() !== null) return;
      if (errorText && errorText !== ABORTED) {
        this.pendingError = `loading ${request.url()} failed: ${errorText}`;
      }
    };
    this.context.on('requestfailed', onFailed);
    try {
      if ((await tab.input(input, this.options.navigationTimeoutMs)) === 'timeout') {
        this.pendingError = `loading the page timed out after ${this.options.navigationTimeoutMs} ms`;
        await tab.stopLoading();
      }
    } finally {
      this.context.off('requestfailed', onFailed);
    }
    const opened = this.context.pages().filter((page) => !before.has(page));
    if (opened.length > 0) {
      this.current = opened.at(-1) as Page;
      await this.adopt(this.current);
      await this.current.bringToFront();
    }
    await this.settle(this.current, 'the page');
    return {};
  }

  /** Runs a navigation; a failure becomes the next observation's error, never an exception. */
  private async navigate(go: () => Promise<unknown>, target: string): Promise<void> {
    try {
      await go();
    } catch (error) {
      this.assertConnected();
      this.pendingError = isTimeout(error)
        ? `loading ${target} timed out after ${this.options.navigationTimeoutMs} ms`
        : `loading ${target} failed: ${firstLine(error).replace(/^page\.\w+: /, '')}`;
      if (isTimeout(error)) await (await this.adopt(this.current)).stopLoading();
    }
    // A failed load commits Chromium's error page a moment later; let it, so the next action
    // does not collide with it.
    await this.current
      .waitForLoadState('load', { timeout: this.options.actionTimeoutMs })
      .catch(() => undefined);
  }

  private async settle(page: Page, target: string): Promise<void> {
    try {
      await page.waitForLoadState('load', { timeout: this.options.navigationTimeoutMs });
    } catch (error) {
      this.assertConnected();
      if (page.isClosed()) return;
      this.pendingError = `loading ${target} timed out after ${this.options.navigationTimeoutMs} ms`;
      await (await this.adopt(page)).stopLoading();
      if (!isTimeout(error)) this.pendingError = `loading ${target} failed: ${firstLine(error)}`;
    }
  }

  /** An absolute http(s) URL of one of the task's sites, or why not. */
  private resolveUrl(raw: string): string | ActionOutcome {
    let url: URL;
    try {
      url = new URL(raw, this.current.url().startsWith('http') ? this.current.url() : undefined);
    } catch {
      return { invalid: `"${raw}" is not a URL; write goto [http://host/path]`, untouched: true };
    }
    if (!this.allowedOrigins.has(url.origin)) {
      return {
        invalid: `goto [${raw}] refused: ${url.origin} is not one of this task's sites (${[...this.allowedOrigins].join(', ')})`,
        untouched: true,
      };
    }
    return url.href;
  }

  private async adopt(page: Page): Promise<BrowserTab> {
    let tab = this.tabs.get(page);
    if (!tab) {
      tab = await BrowserTab.open(page);
      this.tabs.set(page, tab);
    }
    return tab;
  }

  private assertConnected(): void {
    if (!this.context.browser()?.isConnected()) {
      throw new BrowserCrashedError(CRASHED);
    }
  }
}

const CRASHED =
  'the browser closed or crashed during the episode; call reset() to start a new episode (a new browser is launched).';

/**
 * Runs in the page on a text field before typing (as Playwright's `fill`): date-like inputs get
 * their value set (with input and change events) and return 'done'; other fields are focused with
 * their content selected, so the typed text replaces it, and return 'select'.
 */
const PREPARE_FILL = `function (text) {
  if (this.tagName === 'INPUT') {
    const type = this.type.toLowerCase();
    if (type === 'number' && text.trim() !== '' && Number.isNaN(Number(text.trim()))) {
      throw new Error('cannot type "' + text + '" into a number input');
    }
    if (['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'].includes(type)) {
      this.focus();
      this.value = text.trim();
      if (this.value !== text.trim()) throw new Error('"' + text + '" is not a valid ' + type + ' value');
      this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      this.dispatchEvent(new Event('change', { bubbles: true }));
      return 'done';
    }
  }
  if (this.tagName === 'INPUT' || this.tagName === 'TEXTAREA') {
    this.select();
    this.focus();
  } else {
    const range = document.createRange();
    range.selectNodeContents(this);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    this.focus();
  }
  return 'select';
}`;

/** Selects a select's option by index, with the input and change events a person's choice fires. */
function selectIndex(target: Target, index: number): Promise<void> {
  return target
    .call(
      `function (index) {
        this.focus();
        this.selectedIndex = index;
        this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        this.dispatchEvent(new Event('change', { bubbles: true }));
      }`,
      index,
    )
    .then(() => undefined);
}

function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').trim();
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
