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

/** The shape of a path: numbers stand for any number (`/f/cooking/12` → `/f/cooking/#`). */
export function pathShape(key: string): string {
  return key.replace(/\?.*$/, '').replace(/\/\d+(?=\/|$)/g, '/#');
}

/** `text` with every occurrence of origin `from` replaced by `to` (a seen page moved to this run). */
export function moveOrigin(text: string, from: string, to: string): string {
  return from && to && from !== to ? text.replaceAll(from, to) : text;
}
