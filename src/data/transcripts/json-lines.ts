import { DataFormatError } from '../../core/errors.ts';

/** One non-blank line of a JSON Lines text, parsed. */
export interface JsonLine {
  /** 1-based, counting blank lines too. */
  line: number;
  value: unknown;
  /** The line as written (without its line break). */
  text: string;
}

/**
 * The non-blank lines of a JSON Lines text, each parsed. The first line that is not valid JSON
 * throws a `DataFormatError` naming `file`, the line and `what` a line should hold.
 */
export function parseJsonLines(text: string, file: string, what: string): JsonLine[] {
  const lines: JsonLine[] = [];
  splitLines(text).forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ line: i + 1, value: JSON.parse(raw), text: raw });
    } catch (error) {
      throw new DataFormatError(
        file,
        i + 1,
        `not valid JSON (${(error as Error).message}); each line holds ${what}`,
      );
    }
  });
  return lines;
}

/** The lines of a text, without a leading byte-order mark or trailing carriage returns. */
function splitLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/**
 * The 1-based line of `text` that a `JSON.parse` error points at, from the position or line its
 * message names (the wording differs between Node versions); 1 when it names neither.
 */
export function lineOfJsonError(text: string, error: Error): number {
  const line = /\(line (\d+) column \d+\)/.exec(error.message);
  if (line) return Number(line[1]);
  const position = /at position (\d+)/.exec(error.message);
  if (!position) return 1;
  return lineOfOffset(text, Number(position[1]));
}

/** The 1-based line holding character `offset` of `text`. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
