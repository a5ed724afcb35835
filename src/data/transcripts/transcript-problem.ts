import { DreamGymError } from '../../core/errors.ts';

/**
 * One thing wrong with a transcript, in words, before the reader knows where it is: the reader
 * that catches it rethrows a `DataFormatError` naming the file and the line (or span).
 */
export class TranscriptProblem extends DreamGymError {
  override name = 'TranscriptProblem';
}

/** Describes a JSON value in a message: its type, or a short string. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const text = JSON.stringify(value);
    return text.length > 40 ? `${text.slice(0, 37)}..."` : text;
  }
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
