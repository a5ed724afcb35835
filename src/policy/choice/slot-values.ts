import { contentWords } from '../../core/text.ts';
import type { Observation } from '../../core/types.ts';
import { recordsOf } from './observation-records.ts';
import { proposeQueries } from './query-proposer.ts';

/** Where a value for a template's slot came from. */
export type SlotSource = 'instruction' | 'observation' | 'count';

/** A value proposed for a `<placeholder>`, and where it came from. */
export interface SlotValue {
  value: string;
  source: SlotSource;
}

/**
 * The things an instruction names: quoted spans, names (capitalised words in a row that are not
 * a sentence's opening word alone: `Lena Quill`, `Marrowby`), dates (`May 7`), amounts, numbers
 * and ids (`$40`, `555-8398`, `O-2217`).
 */
export function instructionEntities(instruction: string): string[] {
  const out: string[] = [];
  for (const m of instruction.matchAll(/["“]([^"”]{1,80})["”]/g)) out.push(m[1] as string);
  for (const sentence of instruction.split(/(?<=[.?!])\s+/)) out.push(...namesIn(sentence));
  for (const m of instruction.matchAll(/\b[A-Z][a-z]+ \d{1,2}\b/g)) out.push(m[0] as string);
  for (const m of instruction.matchAll(/\$?\d+(?:,\d{3})*(?:\.\d+)?(?:-\d+)?|\b[A-Za-z]+-\d+\b/g))
    out.push(m[0] as string);
  return [...new Set(out)];
}

/**
 * Capitalised words in a row within one sentence, broken at punctuation; a lone one that opens
 * the sentence (`Hi`, `Please`) and `I` are not names.
 */
function namesIn(sentence: string): string[] {
  const out: string[] = [];
  let run: string[] = [];
  let opens = false;
  const close = () => {
    if (run.length > 1 || (run.length === 1 && !opens)) out.push(run.join(' '));
    run = [];
  };
  sentence
    .trim()
    .split(/\s+/)
    .forEach((raw, i) => {
      if (/^[([{"“]/.test(raw)) close();
      const token = raw.replace(/^[^\w$]+|[^\w]+$/g, '').replace(/['’]s$/, '');
      if (/^[A-Z][\w'’-]*$/.test(token) && !/^I(?:['’]\w+)?$/.test(token)) {
        if (run.length === 0) opens = i === 0;
        run.push(token);
      } else close();
      if (/[^\w'’-]$/.test(raw)) close();
    });
  close();
  return out;
}

/** An instruction's entities and a few queries made of its content words (for search boxes). */
export function instructionValues(instruction: string): string[] {
  return [...instructionEntities(instruction), ...proposeQueries(instruction, 3)];
}

/**
 * The values the episode's observations show (most recent first): every field of their
 * records, a JSON tool result's values and a page's labels, names, numbers and ids.
 */
export function observedValues(observations: readonly Observation[]): string[] {
  const out: string[] = [];
  for (let i = observations.length - 1; i >= 0; i--) {
    for (const record of recordsOf((observations[i] as Observation).text))
      for (const field of record.fields)
        if (field.value.length > 0 && field.value.length <= 60) out.push(field.value);
  }
  return out;
}

/**
 * The question an instruction asks: its first sentence that ends with `?`, else its last one
 * ("Hi, this is Lena. How many of my orders have shipped?" → the second sentence).
 */
export function questionOf(instruction: string): string {
  const sentences = instruction.split(/(?<=[.?!])\s+/).filter((s) => s.trim().length > 0);
  return sentences.find((s) => s.trim().endsWith('?')) ?? sentences.at(-1) ?? '';
}

/**
 * Counts the episode shows without saying: for each word of the instruction's question that is
 * a field's whole value in some record (a status, a category), the number of records holding it
 * over the distinct observations of the episode ("how many of my orders have shipped" after
 * reading three orders, two of them `shipped`), and zero for the question's other words.
 * Count → the words counted.
 */
export function countedValues(
  instruction: string,
  observations: readonly Observation[],
): Map<string, string[]> {
  const asked = new Set(contentWords(questionOf(instruction)));
  const counts = new Map<string, number>();
  for (const text of new Set(observations.map((o) => o.text))) {
    for (const record of recordsOf(text)) {
      const held = new Set(
        record.fields.map((f) => f.value.toLowerCase()).filter((v) => asked.has(v)),
      );
      for (const value of held) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
  }
  const out = new Map<string, string[]>();
  for (const [word, count] of counts)
    out.set(String(count), [...(out.get(String(count)) ?? []), word]);
  // What no record holds counts zero ("how many have shipped" when none has).
  const none = [...asked].filter((w) => !counts.has(w) && /^[a-z]{3,}$/.test(w));
  if (none.length > 0) out.set('0', [...(out.get('0') ?? []), ...none]);
  return out;
}

/**
 * The values proposed for a `<placeholder>` slot in a decision, at most `max`: the
 * instruction's, then the current observation's, the counts, then earlier observations'
 * (each value once, compared without case).
 */
export function slotValues(
  observation: Observation,
  earlier: readonly Observation[],
  max: number,
): SlotValue[] {
  const all = [observation, ...earlier];
  const ordered: SlotValue[] = [
    ...instructionValues(observation.instruction).map((value) => ({
      value,
      source: 'instruction' as const,
    })),
    ...observedValues([observation]).map((value) => ({ value, source: 'observation' as const })),
    ...[...countedValues(observation.instruction, all).keys()].map((value) => ({
      value,
      source: 'count' as const,
    })),
    ...observedValues(earlier).map((value) => ({ value, source: 'observation' as const })),
  ];
  const seen = new Set<string>();
  const out: SlotValue[] = [];
  for (const candidate of ordered) {
    const value = candidate.value.trim();
    const key = value.toLowerCase();
    if (value.length === 0 || seen.has(key) || /[<>[\]]/.test(value)) continue;
    seen.add(key);
    out.push({ value, source: candidate.source });
    if (out.length >= max) break;
  }
  return out;
}
