import type { Trajectory } from '../../core/types.ts';
import type { ObservationFacts, QualityLens } from '../../envs/quality-lens.ts';
import { clickLabel, isAsin, parsePage, searchQuery } from '../../experience/webshop/grammar.ts';

/**
 * The quality lens of WebShop-like pages. Entities: product ids (`id:B0…`) and titles
 * (`title:…`) of result rows and item pages. Facts: a results page under the episode's last
 * query and its page number (`results:q:p` → its rows and total), an item page (`item:ASIN` →
 * title, price and option groups; the "You have clicked" line left out, since it reports the
 * click), a product's title and price wherever they show (`title:ASIN`, `price:ASIN`: a result row
 * and the item page must agree), and a Description or Features page (`detail:ASIN:label`).
 * Nothing in WebShop changes a page, so no fact is ever invalidated.
 */
export const webshopLens: QualityLens = {
  family: 'webshop',
  entities(text) {
    const page = parsePage(text);
    if (page.kind === 'results')
      return page.rows.flatMap((row) => [`id:${row.asin}`, `title:${row.title}`]);
    if (page.kind === 'item') return [`title:${page.item.title}`];
    return [];
  },
  facts(trajectory: Trajectory) {
    let query = '';
    let item = '';
    let detail = '';
    const out: ObservationFacts[] = [{ t: 0, invalidates: [], facts: [] }];
    for (const [i, step] of trajectory.steps.entries()) {
      const facts: Array<[string, string]> = [];
      const q = searchQuery(step.action);
      if (q !== undefined) query = q.toLowerCase().replace(/\s+/g, ' ');
      const label = clickLabel(step.action);
      if (label !== undefined && isAsin(label)) item = label;
      if (label === 'Description' || label === 'Features') detail = label;
      const page = step.info?.invalidAction
        ? { kind: 'unchanged' as const }
        : parsePage(step.observation.text);
      if (page.kind === 'results') {
        facts.push([
          `results:${query}:${page.page}`,
          `${page.total}|${page.rows.map((r) => `${r.asin} ${r.title} ${r.price}`).join('|')}`,
        ]);
        for (const row of page.rows)
          facts.push([`title:${row.asin}`, row.title], [`price:${row.asin}`, row.price]);
      } else if (page.kind === 'item' && item) {
        const { title, price, options } = page.item;
        const groups = options.map((g) => `${g.name}:${g.values.join(',')}`).join(';');
        facts.push([`item:${item}`, `${title}|${price}|${groups}`]);
        facts.push([`title:${item}`, title], [`price:${item}`, price]);
      } else if (page.kind === 'detail' && item && detail) {
        facts.push([`detail:${item}:${detail}`, page.body]);
      }
      out.push({ t: i + 1, invalidates: [], facts });
    }
    return out;
  },
};
