import { words } from '../../core/text.ts';

/**
 * What a shop-like item page offers and what the shopper asked for: option groups (lines such as
 * `color [black][white][glass]`), the values chosen on this page, and the groups whose wanted value
 * is not chosen yet — the facts that decide between picking an option and buying.
 */
export interface PageOptions {
  /** Option value (lower-cased) → its group's name. */
  groupOf: Map<string, string>;
  /** Values chosen on this page: the trailing clicks of the history on its option values. */
  selected: Set<string>;
  /** Groups with a selected value. */
  selectedGroups: Set<string>;
  /** Values the instruction names (their words appear in it in order), per group. */
  wanted: Map<string, string[]>;
  /** Groups with a wanted value and no selection yet. */
  pending: number;
  /**
   * Groups the instruction names (`… in white color`) none of whose values it asks for: a sign
   * that this is not the item it wants.
   */
  mismatched: number;
}

const OPTION_LINE = /^([a-z][a-z ]*?)\s+((?:\[[^\]]+\])+)\s*$/i;

/** Reads the option groups of `text`; `history` is the episode's actions, oldest first. */
export function pageOptions(
  text: string,
  instructionWords: readonly string[],
  history: readonly string[],
): PageOptions {
  const groupOf = new Map<string, string>();
  const wanted = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = OPTION_LINE.exec(line.trim());
    if (!match) continue;
    const group = (match[1] as string).toLowerCase();
    for (const [, raw] of (match[2] as string).matchAll(/\[([^\]]+)\]/g)) {
      const value = (raw as string).toLowerCase();
      groupOf.set(value, group);
      if (isPhraseOf(words(value), instructionWords)) {
        wanted.set(group, [...(wanted.get(group) ?? []), value]);
      }
    }
  }
  const selected = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const value = /^click\[(.*)\]$/i.exec((history[i] as string).trim())?.[1]?.toLowerCase();
    if (value === undefined || !groupOf.has(value)) break;
    selected.add(value);
  }
  const selectedGroups = new Set([...selected].map((v) => groupOf.get(v) as string));
  const pending = [...wanted.keys()].filter((g) => !selectedGroups.has(g)).length;
  const groups = new Set(groupOf.values());
  const mismatched = [...groups].filter(
    (g) => !wanted.has(g) && isPhraseOf(words(g), instructionWords),
  ).length;
  return { groupOf, selected, selectedGroups, wanted, pending, mismatched };
}

/** Whether `phrase` occurs in `text` as consecutive words. */
export function isPhraseOf(phrase: readonly string[], text: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= text.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (text[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}
