/**
 * URLs of web pages as the experience model keys them: by path and query, never by origin (the
 * built-in sites listen on a fresh port per run, so the same page shows another origin).
 */

/** `http://127.0.0.1:4123/f/cooking?sort=new` → `http://127.0.0.1:4123`; '' when not absolute. */
export function originOf(url: string | undefined): string {
  if (!url) return '';
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? '' : parsed.origin;
  } catch {
    return '';
  }
}

/** The page key of a URL: path and query with sorted parameters, no origin, no fragment. */
export function pathKey(url: string | undefined): string {
  if (!url) return '';
  try {
    const parsed = new URL(url, 'http://relative.invalid');
    parsed.searchParams.sort();
    const query = parsed.searchParams.toString();
    return `${parsed.pathname}${query ? `?${query}` : ''}`;
  } catch {
    return url;
  }
}

/** `text` with every occurrence of origin `from` replaced by `to` (a seen page moved to this run). */
export function moveOrigin(text: string, from: string, to: string): string {
  return from && to && from !== to ? text.replaceAll(from, to) : text;
}

/**
 * How a seen path differs from a wanted one when both have the same segments but one
 * (`/f/jazz` vs `/f/climbing`): the differing pair, `[]` when equal, undefined when they differ
 * more (another count of segments, or two segments or more).
 */
export function oneSegmentApart(seen: string, wanted: string): Array<[string, string]> | undefined {
  const a = seen.replace(/\?.*$/, '').split('/');
  const b = wanted.replace(/\?.*$/, '').split('/');
  if (a.length !== b.length) return undefined;
  const swaps: Array<[string, string]> = [];
  a.forEach((segment, i) => {
    if (segment !== b[i]) swaps.push([segment, b[i] as string]);
  });
  return swaps.length <= 1 ? swaps : undefined;
}

/**
 * How a seen path differs from a wanted one of as many segments: every differing pair
 * (`/f/jazz/12` vs `/f/cooking/40`: jazz → cooking, 12 → 40); undefined for another count.
 */
export function segmentsApart(seen: string, wanted: string): Array<[string, string]> | undefined {
  const a = seen.replace(/\?.*$/, '').split('/');
  const b = wanted.replace(/\?.*$/, '').split('/');
  if (a.length !== b.length) return undefined;
  return a.flatMap((segment, i) => (segment === b[i] ? [] : [[segment, b[i] as string]]));
}
