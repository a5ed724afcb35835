/**
 * Reading the LLM policy's answer: the thought and the action, and the action matched against
 * the admissible ones. Models decorate their answers ("**Action:** `click[buy now]`."), so the
 * parser forgives markup, quotes, trailing punctuation and case, and always returns the action
 * as the env lists it. What it cannot use comes back as a `problem` worded for the model, which
 * the policy shows it in its one retry.
 */
import { z } from 'zod';

/** The structured answer's schema (`structured: true`). */
export const StructuredAnswer = z.object({
  thought: z.string().describe('brief reasoning about what to do next'),
  action: z.string().describe('one admissible action, written exactly as listed'),
});
export type StructuredAnswer = z.infer<typeof StructuredAnswer>;

export type ParsedAnswer =
  | { ok: true; action: string; thought: string | undefined }
  | {
      ok: false;
      problem: string;
      /** What the answer put after "Action:" (empty when nothing), for the record. */
      attemptedAction: string;
      thought: string | undefined;
    };

/** Longest attempted action kept for the record: a rambling answer is not an action. */
const MAX_ATTEMPT_CHARS = 200;

/** A line label such as `Action:`, `**Action:**` or `### Thought:`. */
const label = (name: string) => new RegExp(`[*_#>\\s]*\\b${name}[*_]*\\s*:[*_]*[ \\t]*`, 'gi');

/**
 * Reads a plain-text `Thought: … Action: …` answer. The action is the rest of the first line that
 * starts with "Action:" (the next line when that is empty), so text the model goes on to invent
 * after it (an imagined observation, a second action) is ignored; without such a line, the last
 * "Action:" anywhere counts, for answers written on one line.
 */
export function parseTextAnswer(
  text: string,
  admissible: readonly string[] | undefined,
): ParsedAnswer {
  const found = findActionLabel(text);
  const thought = thoughtBefore(text, found?.start ?? text.length);
  if (!found) {
    return {
      ok: false,
      problem:
        'the answer has no "Action:" line; end it with a line "Action: <one admissible action>"',
      attemptedAction: '',
      thought,
    };
  }
  // The first line with more than a code fence on it: "Action:" may stand alone above it.
  const candidate =
    text
      .slice(found.end)
      .split('\n')
      .find((line) => line.replace(/`/g, '').trim().length > 0) ?? '';
  return withThought(matchAction(candidate, admissible), thought);
}

/** Checks a structured answer's action against the admissible ones. */
export function parseStructuredAnswer(
  answer: StructuredAnswer,
  admissible: readonly string[] | undefined,
): ParsedAnswer {
  const thought = answer.thought.trim() || undefined;
  return withThought(matchAction(answer.action, admissible), thought);
}

type ActionMatch =
  | { ok: true; action: string }
  | { ok: false; problem: string; attemptedAction: string };

/**
 * The admissible action an answer's action stands for: equal up to case, spacing and decoration,
 * or a template such as `search[<query>]` with its placeholder filled in. Envs that list no
 * actions accept any non-empty action.
 */
export function matchAction(raw: string, admissible: readonly string[] | undefined): ActionMatch {
  const variants = [...new Set([raw.trim(), undecorated(raw)])].filter((v) => v.length > 0);
  const cleanest = variants.at(-1) ?? '';
  const attemptedAction = cleanest.slice(0, MAX_ATTEMPT_CHARS);
  if (variants.length === 0) return { ok: false, problem: 'the action is empty', attemptedAction };
  if (!admissible || admissible.length === 0) return { ok: true, action: cleanest };
  for (const variant of variants) {
    const exact = admissible.find((a) => !isTemplate(a) && normalized(a) === normalized(variant));
    if (exact !== undefined) return { ok: true, action: exact };
  }
  for (const variant of variants) {
    for (const template of admissible.filter(isTemplate)) {
      const filled = fillFrom(template, variant);
      if (filled === 'unfilled') {
        return {
          ok: false,
          problem: `"${variant}" still has its placeholder; write your own text in place of the <…> part`,
          attemptedAction,
        };
      }
      if (filled !== undefined) return { ok: true, action: filled };
    }
  }
  return {
    ok: false,
    problem: `"${attemptedAction}" is not one of the admissible actions; copy one exactly from the list (filling a template's <placeholder> with your own text)`,
    attemptedAction,
  };
}

function withThought(match: ActionMatch, thought: string | undefined): ParsedAnswer {
  return { ...match, thought };
}

function findActionLabel(text: string): { start: number; end: number } | undefined {
  const all = [...text.matchAll(label('action'))];
  const atLineStart = all.find((m) => m.index === 0 || /\n\s*$/.test(text.slice(0, m.index + 1)));
  const chosen = atLineStart ?? all.at(-1);
  if (!chosen) return undefined;
  return { start: chosen.index, end: chosen.index + chosen[0].length };
}

/** The text before the action: after a "Thought:" label when there is one. */
function thoughtBefore(text: string, end: number): string | undefined {
  const before = text.slice(0, end);
  const thoughtLabel = [...before.matchAll(label('thought'))].at(0);
  const thought = thoughtLabel ? before.slice(thoughtLabel.index + thoughtLabel[0].length) : before;
  return thought.trim() || undefined;
}

/** Without markdown and list markers, enclosing backticks or quotes, or trailing punctuation. */
function undecorated(action: string): string {
  let out = action.trim();
  for (let previous = ''; previous !== out; ) {
    previous = out;
    out = out
      .replace(/^(?:[-*•]\s+|\*\*|__)/, '')
      .replace(/(?:\*\*|__)$/, '')
      .replace(/^(`+|"|'|“|‘)(.*)(\1|”|’)$/s, '$2')
      .replace(/[.,;:!]+$/, '')
      .trim();
  }
  return out;
}

function normalized(action: string): string {
  return action.trim().replace(/\s+/g, ' ').toLowerCase();
}

const PLACEHOLDER = /<[^<>]+>/;

function isTemplate(action: string): boolean {
  return PLACEHOLDER.test(action);
}

/**
 * `template` filled with what `candidate` has in the placeholder's place, with the template's own
 * spelling around it; 'unfilled' when the candidate copied the placeholder; undefined when the
 * candidate does not have the template's shape.
 */
function fillFrom(template: string, candidate: string): string | 'unfilled' | undefined {
  const [prefix = '', suffix = ''] = template.split(PLACEHOLDER);
  const shape = new RegExp(`^${pattern(prefix)}(.*)${pattern(suffix)}$`, 'is');
  const value = shape.exec(candidate.trim())?.[1]?.trim();
  if (value === undefined || value.length === 0) return undefined;
  if (PLACEHOLDER.test(value) && value.replace(PLACEHOLDER, '').trim() === '') return 'unfilled';
  return `${prefix}${value}${suffix}`;
}

/** A regex source matching `text` literally, any run of spaces standing for any other. */
function pattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
}
