import type { BrowserContext, Page } from 'playwright-core';
import type { LlmClient } from '../../../llm/client.ts';
import type { ProgramHtmlCheck } from './config.ts';
import type { CheckOutcome } from './evaluator.ts';
import { judgeFuzzy } from './judge.ts';
import { alternatives, exactMatch, mustExclude, mustIncludeAny } from './string-match.ts';

/**
 * WebArena's program_html evaluator (`HTMLContentEvaluator` in `evaluation_harness/evaluators.py`):
 * open the check's page, select text with its `locator`, compare with `required_contents`.
 *
 * Where we depart from WebArena, and why:
 * - A check with a URL opens it in a new tab of the episode's context (closed afterwards) rather
 *   than navigating the final page away, so a later `last` check still sees the final page. It
 *   waits for the page's load event and then for the network to go idle (at most `settleMs`)
 *   instead of WebArena's fixed 3 s sleep.
 * - `func:` helpers that only read the page or its URL are implemented
 *   (`reddit_get_post_url('__last_url__')`, `gitlab_get_project_memeber_role(__page__, NAME)`);
 *   those that call Magento's REST API with admin credentials (`shopping_get_latest_order_url`,
 *   `shopping_get_sku_latest_review_*`) are reported as unsupported: undecided, never guessed.
 * - A page that cannot be opened (refused, timed out) leaves the check undecided rather than
 *   crashing the evaluation as it would in WebArena.
 */

export interface ProgramHtmlOptions {
  /** The page the episode ended on (`last`). */
  page: Page;
  context: BrowserContext;
  /** The task's intent, for the judge of WebArena-Lite's `fuzzy_match` contents. */
  intent: string;
  judge?: LlmClient;
  /** Longest wait for the network to go idle after a check's page loaded. */
  settleMs: number;
}

/** Text shown in a detail: the located text, cut to a readable length. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `"${flat.slice(0, 160)}…"` : `"${flat}"`;
}

/** WebArena's `reddit_get_post_url`: a Postmill comment URL → its post's URL; others unchanged. */
export function redditPostUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const parts = parsed.pathname.split('/');
  if (parts.length < 4 || parts[1] !== 'f') return url;
  return `${parsed.protocol}//${parsed.host}/f/${parts[2]}/${parts[3]}/`;
}

type Resolved<T> = { ok: true; value: T } | { ok: false; detail: string };

/** The URL a check's `url` names: `last`, a URL, or a supported `func:` helper of the last URL. */
function resolveUrl(url: string, lastUrl: string): Resolved<string> {
  if (!url.startsWith('func')) return { ok: true, value: url };
  const post = /^func:\s*reddit_get_post_url\(\s*(['"])__last_url__\1\s*\)$/.exec(url);
  if (post) return { ok: true, value: redditPostUrl(lastUrl) };
  return {
    ok: false,
    detail: `unsupported url helper ${url}: it needs WebArena's own site APIs; this check cannot be decided here`,
  };
}

/**
 * The value of a JavaScript locator as WebArena's Python sees it after `str()`: null is `None`,
 * booleans `True`/`False`, lists and objects their JSON.
 */
function pythonString(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/**
 * Reads the role of `@account` on a GitLab project members page (WebArena's helper, same rule).
 * A script string: this module is compiled without the DOM's types.
 */
const GITLAB_MEMBER_ROLE = `(name) => {
  const accounts = [...document.querySelectorAll("td[data-label='Account'] span.gl-avatar-labeled-sublabel")];
  const index = accounts.findIndex((el) => el.outerText === '@' + name);
  const role = document.querySelectorAll('td.col-max-role span')[index];
  return role ? role.outerText : '';
}`;

async function gitlabMemberRole(page: Page, account: string): Promise<string> {
  try {
    return String(await page.evaluate(`(${GITLAB_MEMBER_ROLE})(${JSON.stringify(account)})`));
  } catch {
    return '';
  }
}

/** The text a locator selects on `page`, or why it cannot be computed. */
async function locate(page: Page, check: ProgramHtmlCheck): Promise<Resolved<string>> {
  const locator = check.locator.trim();
  if (locator === '') return { ok: true, value: await page.content() };
  if (locator.startsWith('document.') || locator.startsWith('[...document.')) {
    for (const action of check.prep_actions ?? []) {
      await page.evaluate(action).catch(() => undefined);
    }
    try {
      // WebArena reads a locator that throws (the element is missing) as empty text.
      return { ok: true, value: pythonString(await page.evaluate(locator)) };
    } catch {
      return { ok: true, value: '' };
    }
  }
  const role =
    /^func:\s*gitlab_get_project_memeber_role\(\s*__page__\s*,\s*(['"])(.+?)\1\s*\)$/.exec(locator);
  if (role) return { ok: true, value: await gitlabMemberRole(page, role[2] as string) };
  return {
    ok: false,
    detail: locator.startsWith('func:')
      ? `unsupported locator helper ${locator}: it needs WebArena's own site APIs; this check cannot be decided here`
      : `unknown locator "${locator}": WebArena accepts "", document.… or [...document.… JavaScript, or func:…`,
  };
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/**
 * WebArena unescapes HTML entities in the located text (`html.unescape`). Numeric entities and
 * the common named ones are decoded; other named entities stay as written.
 */
export function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === '#') {
      const point =
        code[1] === 'x' || code[1] === 'X'
          ? Number.parseInt(code.slice(2), 16)
          : Number.parseInt(code.slice(1), 10);
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}

/** Compares the located text with `required_contents`, in WebArena's order of precedence. */
async function compare(
  text: string,
  check: ProgramHtmlCheck,
  options: ProgramHtmlOptions,
  where: string,
): Promise<CheckOutcome> {
  const required = check.required_contents;
  const found = `${where}: found ${excerpt(text)}`;
  if (required.exact_match !== undefined) {
    return {
      check: 'program_html/exact_match',
      passed: exactMatch(required.exact_match, text),
      detail: `${found}, expected exactly "${required.exact_match}"`,
    };
  }
  if (required.must_include !== undefined) {
    const missing = required.must_include.filter((entry) => !mustIncludeAny(entry, text));
    return {
      check: 'program_html/must_include',
      passed: missing.length === 0,
      detail:
        missing.length === 0
          ? `${found}, includes ${required.must_include.map((e) => `"${e}"`).join(', ')}`
          : `${found}, lacks ${missing
              .map((e) =>
                alternatives(e)
                  .map((a) => `"${a}"`)
                  .join(' or '),
              )
              .join(', ')}`,
    };
  }
  if (required.must_exclude !== undefined) {
    const present = required.must_exclude.filter((entry) => !mustExclude(entry, text));
    return {
      check: 'program_html/must_exclude',
      passed: present.length === 0,
      detail:
        present.length === 0
          ? `${found}, free of ${required.must_exclude.map((e) => `"${e}"`).join(', ')}`
          : `${found}, contains ${present.map((e) => `"${e}"`).join(', ')}`,
    };
  }
  if (required.fuzzy_match !== undefined) {
    if (!options.judge) {
      return {
        check: 'program_html/fuzzy_match',
        passed: undefined,
        detail: `${found}; needs an LLM judge to compare with "${required.fuzzy_match.join(', ')}" (configure one)`,
      };
    }
    // WebArena-Lite judges the located text against all facts at once, joined by ', '.
    const verdict = await judgeFuzzy(options.judge, {
      intent: options.intent,
      reference: required.fuzzy_match.join(', '),
      answer: text,
    });
    return { check: 'program_html/fuzzy_match', ...verdict };
  }
  return {
    check: 'program_html',
    passed: undefined,
    detail: `${where}: required_contents names no known comparison (exact_match, must_include, must_exclude, fuzzy_match)`,
  };
}

/** Runs one program_html check; opens and closes its own tab when it names a URL. */
export async function runProgramHtmlCheck(
  check: ProgramHtmlCheck,
  options: ProgramHtmlOptions,
): Promise<CheckOutcome> {
  const url = resolveUrl(check.url, options.page.url());
  if (!url.ok) return { check: 'program_html', passed: undefined, detail: url.detail };
  if (url.value === 'last') {
    const text = await locate(options.page, check);
    if (!text.ok) return { check: 'program_html', passed: undefined, detail: text.detail };
    return compare(unescapeHtml(text.value), check, options, `last page ${options.page.url()}`);
  }
  const page = await options.context.newPage();
  try {
    try {
      await page.goto(url.value, { waitUntil: 'load' });
    } catch (error) {
      return {
        check: 'program_html',
        passed: undefined,
        detail: `could not open ${url.value} (${(error as Error).message.split('\n')[0]}); is the site up?`,
      };
    }
    await page
      .waitForLoadState('networkidle', { timeout: options.settleMs })
      .catch(() => undefined);
    const text = await locate(page, check);
    if (!text.ok) return { check: 'program_html', passed: undefined, detail: text.detail };
    return compare(unescapeHtml(text.value), check, options, url.value);
  } finally {
    await page.close().catch(() => undefined);
  }
}
