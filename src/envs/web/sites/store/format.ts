/**
 * How the store admin writes money and dates. Pages and task references share these, so an
 * answer read off a page and the reference computed from the data are the same string.
 */

import { MONTH_NAMES } from './vocab.ts';

/** `$1,234.50` from cents. */
export function formatMoney(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  return `${sign}$${plainMoney(Math.abs(cents)).replace(/\B(?=(\d{3})+\.)/g, ',')}`;
}

/** `1234.50` from cents: the form a price input holds. */
export function plainMoney(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** `Mar 5, 2024` from `2024-03-05` (or a `2024-03-05 10:31` timestamp). */
export function formatDate(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  return `${(MONTH_NAMES[month - 1] as string).slice(0, 3)} ${day}, ${year}`;
}

/** `2025-01-03 09:01` from a site-clock time (seconds, UTC): how rows store a time. */
export function storedTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** `Mar 5, 2024 10:31` from `2024-03-05 10:31`. */
export function formatDateTime(timestamp: string): string {
  const time = timestamp.slice(11, 16);
  return time ? `${formatDate(timestamp)} ${time}` : formatDate(timestamp);
}

/**
 * Dollars typed into a form (`19.99`, `$1,200`, `7`) as cents, or undefined when it is not a
 * non-negative amount with at most two decimals.
 */
export function parseMoney(text: string): number | undefined {
  const cleaned = text.trim().replace(/^\$/, '').replaceAll(',', '');
  if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return undefined;
  return Math.round(Number(cleaned) * 100);
}
