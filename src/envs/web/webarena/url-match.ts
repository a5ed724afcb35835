import { OR_SEPARATOR } from './config.ts';

/** The url_match rules we know: WebArena's `GOLD in PRED` (its default) and WebArena-Lite's `EXACT`. */
export const URL_RULES = ['GOLD in PRED', 'EXACT'] as const;
export type UrlRule = (typeof URL_RULES)[number];

/** A url_match verdict; `passed` is undefined for a rule we do not know. */
export interface UrlMatchResult {
  passed: boolean | undefined;
  detail: string;
}

interface ParsedUrl {
  /** Host (with port) and path, percent-decoded, as Python's `netloc + path`. */
  basePath: string;
  /** Query parameters, each with every non-blank value (Python's `parse_qs`). */
  query: Map<string, string[]>;
}

/** WebArena's `clean_url`: no trailing slashes. */
function cleanUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/**
 * Paths are compared percent-decoded on both sides: the browser reports `page.url` encoded while
 * configs write references raw (`São_Paulo`, spaces), which WebArena compares byte for byte.
 */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseUrl(url: string): ParsedUrl {
  let basePath: string;
  let search: string;
  try {
    const parsed = new URL(url);
    basePath = parsed.host + parsed.pathname;
    search = parsed.search;
  } catch {
    const at = url.indexOf('?');
    basePath = (at < 0 ? url : url.slice(0, at)).replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
    search = at < 0 ? '' : url.slice(at);
  }
  const query = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(search)) {
    if (value === '') continue;
    query.set(key, [...(query.get(key) ?? []), value]);
  }
  return { basePath: decode(basePath), query };
}

/**
 * WebArena's `URLEvaluator` (`evaluation_harness/evaluators.py`): `reference` lists gold URLs
 * joined by ` |OR| `; under `GOLD in PRED` the final URL passes when some gold base path
 * (host + path) is a substring of its base path and, for every query key of any gold URL, one of
 * the gold values of that key is among its values. As in WebArena, the keys of all alternatives
 * are pooled, so each alternative should carry the same keys. `EXACT` (WebArena-Lite): the final
 * URL equals one of the gold URLs, trailing slashes aside.
 */
export function urlMatch(
  reference: string,
  finalUrl: string,
  rule = 'GOLD in PRED',
): UrlMatchResult {
  const golds = reference.split(OR_SEPARATOR).map(cleanUrl);
  const pred = cleanUrl(finalUrl);
  const expected = `expected ${golds.join(' or ')} (${rule}), found ${pred}`;
  if (rule === 'EXACT') {
    return { passed: golds.includes(pred), detail: expected };
  }
  if (rule !== 'GOLD in PRED') {
    return {
      passed: undefined,
      detail: `unknown url_note "${rule}"; known rules: ${URL_RULES.join(', ')}`,
    };
  }
  const predicted = parseUrl(pred);
  const parsedGolds = golds.map(parseUrl);
  const baseOk = parsedGolds.some((gold) => predicted.basePath.includes(gold.basePath));
  const goldValues = new Map<string, Set<string>>();
  for (const gold of parsedGolds) {
    for (const [key, values] of gold.query) {
      const set = goldValues.get(key) ?? new Set<string>();
      for (const value of values) set.add(value);
      goldValues.set(key, set);
    }
  }
  const missing = [...goldValues].filter(
    ([key, values]) => !(predicted.query.get(key) ?? []).some((value) => values.has(value)),
  );
  if (!baseOk) return { passed: false, detail: `${expected}: the path differs` };
  if (missing.length > 0) {
    const keys = missing.map(([key, values]) => `${key}=${[...values].join('|')}`).join(', ');
    return { passed: false, detail: `${expected}: query lacks ${keys}` };
  }
  return { passed: true, detail: expected };
}
