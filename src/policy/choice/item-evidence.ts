import type { Observation } from '../../core/types.ts';

/**
 * What a shopping episode has learnt by opening items: the item open now, every page shown of it
 * since it was opened (its page, description, features), and the items opened before and left.
 * A results page shows titles and prices only, so a policy cannot tell a fitting item from a near
 * miss without opening it; this is what lets it open one, check it, and go back for another.
 */
export interface ItemEvidence {
  /** Id of the item open now (lower-cased), if the episode is on its pages. */
  current?: string;
  /** The text of every page seen of the current item, joined. */
  seen: string;
  /** Its description or features page was read. */
  details: boolean;
  /** Items opened earlier in the episode and left (lower-cased ids). */
  left: Set<string>;
}

/** `click[B0…]`: opening a result. The id is WebShop's ASIN shape. */
const OPEN_ITEM = /^click\[(b0[a-z0-9]{8})\]$/i;
const DETAILS = /^click\[(description|features)\]$/i;

/** The id of the item `action` opens, or undefined when it opens none. */
export function openedItem(action: string): string | undefined {
  return OPEN_ITEM.exec(action.trim())?.[1]?.toLowerCase();
}

/**
 * Reads the evidence from the episode's actions and the env's reply to each (same length, oldest
 * first). An item stays current while its own pages are shown; a results or search page ends it.
 */
export function itemEvidence(
  history: readonly string[],
  replies: readonly Observation[],
): ItemEvidence {
  const evidence: ItemEvidence = { seen: '', details: false, left: new Set() };
  const leave = () => {
    if (evidence.current) evidence.left.add(evidence.current);
    evidence.current = undefined;
    evidence.seen = '';
    evidence.details = false;
  };
  history.forEach((action, i) => {
    const reply = replies[i]?.text ?? '';
    const opened = openedItem(action);
    if (opened) {
      leave();
      evidence.current = opened;
      evidence.seen = reply;
    } else if (evidence.current && isListing(reply)) {
      leave();
    } else if (evidence.current) {
      if (DETAILS.test(action.trim())) evidence.details = true;
      evidence.seen = `${evidence.seen}\n${reply}`;
    }
  });
  return evidence;
}

/** A results or search page: the episode is no longer on an item's pages. */
function isListing(text: string): boolean {
  return /Total results:/.test(text) || /\[Search\]\s*$/.test(text);
}
