import { TRAJECTORY_FORMAT } from '../trajectory-format.ts';
import { isObject } from './transcript-problem.ts';

/** The formats `dreamgym buffer import` reads. */
export const IMPORT_FORMATS = ['openai-chat', 'otlp', 'trajectories'] as const;

/** One of {@link IMPORT_FORMATS}: OpenAI chat JSONL, OTLP JSON spans, or dreamgym trajectory JSONL. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** How many characters of a file's start {@link sniffFormat} needs to look at. */
export const SNIFF_CHARS = 64 * 1024;

/**
 * The format a file's first characters show, or undefined when they show none: the first line's
 * JSON object says it (`"format": "dreamgym.trajectory"`, `"messages"`, `"resourceSpans"`); when
 * that line is not a whole JSON object (a pretty-printed OTLP export, a line longer than `head`),
 * the first of those keys to appear decides.
 */
export function sniffFormat(head: string): ImportFormat | undefined {
  const text = head.replace(/^\uFEFF/, '');
  const firstLine = text.split('\n').find((line) => line.trim() !== '') ?? '';
  let value: unknown;
  try {
    value = JSON.parse(firstLine);
  } catch {
    return formatOfFirstKey(text);
  }
  if (!isObject(value)) return undefined;
  if (value.format === TRAJECTORY_FORMAT) return 'trajectories';
  if (Array.isArray(value.messages)) return 'openai-chat';
  if (Array.isArray(value.resourceSpans)) return 'otlp';
  return undefined;
}

const KEYS: [RegExp, ImportFormat][] = [
  [new RegExp(`"format"\\s*:\\s*"${TRAJECTORY_FORMAT.replace('.', '\\.')}"`), 'trajectories'],
  [/"messages"\s*:\s*\[/, 'openai-chat'],
  [/"resourceSpans"\s*:\s*\[/, 'otlp'],
];

function formatOfFirstKey(text: string): ImportFormat | undefined {
  let best: { at: number; format: ImportFormat } | undefined;
  for (const [pattern, format] of KEYS) {
    const at = pattern.exec(text)?.index;
    if (at !== undefined && (!best || at < best.at)) best = { at, format };
  }
  return best?.format;
}
