import { contentWords, words } from '../../core/text.ts';
import { bigramsOf, coverage, pairCoverage } from './coverage.ts';
import type { FamilyFeatures } from './feature-set.ts';
import { type ItemEvidence, itemEvidence, openedItem } from './item-evidence.ts';
import { isPhraseOf, type PageOptions, pageOptions } from './page-options.ts';

/** A shop decision's facts: the page's option groups and what the episode saw of items. */
export interface ShopView {
  instructionWords: readonly string[];
  options: PageOptions;
  /** What the episode has seen of the item open now and which items it left. */
  item: ItemEvidence;
  /** Shares of the instruction's words and word pairs that the open item's pages show. */
  itemCoverage: number;
  itemPairs: number;
  /** Each listed result's place on its page (0 = first), by lower-cased id. */
  resultRank: Map<string, number>;
}

/**
 * The shop's features (WebShop's pages): whether a label is a phrase of the instruction (a wanted
 * option), the option group's state and Buy-Now readiness; on an item's pages, the shares of
 * instruction words and word pairs its pages showed so far (page, description, features) and
 * whether details were read, for buying, reading details or leaving; for opening a result,
 * whether it was opened and left before and its place in the search engine's order.
 *
 * Action block (24): 0 phrase of the instruction; 1–5 option group, wanted value, chosen,
 * group chosen, another value of a wanted group; 6–7 Buy Now ready, options pending; 8–9 the
 * result's rank (slots the household uses for other commands); 16 Buy Now with a mismatched
 * group; 17 leaving such an item; 18 the result was left before; 19–21 item coverage, word
 * pairs, details read; 22 items left; 23 details already read. State block: 0 options pending.
 */
export const shopFeatures: FamilyFeatures<ShopView> = {
  name: 'shop',
  actionScalars: 24,
  stateScalars: 1,

  view(decision) {
    const { instruction, text } = decision.observation;
    const instructionWords = words(instruction);
    const item = itemEvidence(decision.history, decision.observations ?? []);
    const wanted = new Set(contentWords(instruction));
    return {
      instructionWords,
      options: pageOptions(text, instructionWords, decision.history),
      item,
      itemCoverage: item.current ? coverage(wanted, item.seen) : 0,
      itemPairs: item.current ? pairCoverage(bigramsOf(contentWords(instruction)), item.seen) : 0,
      resultRank: new Map(
        (decision.observation.actions ?? [])
          .flatMap((a) => openedItem(a) ?? [])
          .map((id, rank) => [id, rank]),
      ),
    };
  },

  action(view, _decision, action, out) {
    const lower = action.trim().toLowerCase();
    const labelText = action.replace(/^\s*[a-z_]+\s*\[?/i, '').replace(/\]\s*$/, '');
    const label = words(labelText);
    const { options } = view;
    const value = labelText.trim().toLowerCase();
    const group = options.groupOf.get(value);
    const isBuy = lower === 'click[buy now]';
    out[0] = label.length > 0 && isPhraseOf(label, view.instructionWords) ? 1 : 0;
    if (group !== undefined) {
      out[1] = 1;
      out[2] = options.wanted.get(group)?.includes(value) ? 1 : 0;
      out[3] = options.selected.has(value) ? 1 : 0;
      out[4] = options.selectedGroups.has(group) ? 1 : 0;
      out[5] = options.wanted.has(group) && !options.wanted.get(group)?.includes(value) ? 1 : 0;
    }
    if (isBuy) {
      out[6] = options.pending === 0 ? 1 : 0;
      out[7] = Math.min(2, options.pending) / 2;
      out[16] = options.mismatched > 0 ? 1 : 0;
    }
    if (lower === 'click[< prev]' || lower === 'click[back to search]') {
      out[17] = options.mismatched > 0 ? 1 : 0;
    }

    // Opening items to check them: what the open item's pages showed, items already left.
    const { item } = view;
    const opens = openedItem(lower);
    const leaves = lower === 'click[< prev]' || lower === 'click[back to search]';
    const details = lower === 'click[description]' || lower === 'click[features]';
    if (opens) {
      out[18] = item.left.has(opens) ? 1 : 0;
      // The search engine's order: its first result fits the query best more often than not.
      const rank = view.resultRank.get(opens);
      if (rank !== undefined) {
        out[8] = 1 - Math.min(10, rank) / 10;
        out[9] = rank === 0 ? 1 : 0;
      }
    }
    if (item.current && (isBuy || leaves || details)) {
      out[19] = view.itemCoverage;
      out[20] = view.itemPairs;
      out[21] = item.details ? 1 : 0;
    }
    if (opens || isBuy || leaves) out[22] = Math.min(3, item.left.size) / 3;
    if (details) out[23] = item.details ? 1 : -1;
  },

  state(view, _decision, out) {
    out[0] = Math.min(2, view.options.pending) / 2;
  },
};
