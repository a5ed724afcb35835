/**
 * The report queries, shared by the report pages and the task generator so that what a page
 * shows and what a task expects come from one definition of the numbers. Canceled orders count
 * as placed but never as sold.
 */

import type Database from 'better-sqlite3';

export interface BestSeller {
  productId: number;
  name: string;
  sku: string;
  units: number;
  revenueCents: number;
}

/** Products by units sold in `year` (and `month`, 1–12, if given): most first, ties by revenue then name. */
export function bestSellers(
  db: Database.Database,
  year: number,
  month?: number,
  limit = 10,
): BestSeller[] {
  const prefix = month ? `${year}-${String(month).padStart(2, '0')}-` : `${year}-`;
  return db
    .prepare(
      `SELECT i.product_id AS productId, p.name, p.sku, SUM(i.qty) AS units,
         SUM(i.qty * i.price_cents) AS revenueCents
       FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id
       WHERE o.status != 'Canceled' AND o.placed_at LIKE ? || '%'
       GROUP BY i.product_id ORDER BY units DESC, revenueCents DESC, p.name LIMIT ?`,
    )
    .all(prefix, limit) as BestSeller[];
}

export interface MonthSales {
  /** 1–12. */
  month: number;
  orders: number;
  canceled: number;
  units: number;
  revenueCents: number;
}

/** Every month of `year`: orders placed, of them canceled, units and revenue of the rest. */
export function monthlySales(db: Database.Database, year: number): MonthSales[] {
  const rows = db
    .prepare(
      `SELECT CAST(substr(o.placed_at, 6, 2) AS INTEGER) AS month, COUNT(*) AS orders,
         SUM(o.status = 'Canceled') AS canceled,
         SUM(CASE WHEN o.status = 'Canceled' THEN 0 ELSE
           (SELECT SUM(qty) FROM order_items WHERE order_id = o.id) END) AS units,
         SUM(CASE WHEN o.status = 'Canceled' THEN 0 ELSE o.shipping_cents +
           (SELECT SUM(qty * price_cents) FROM order_items WHERE order_id = o.id) END) AS revenueCents
       FROM orders o WHERE o.placed_at LIKE ? || '-%' GROUP BY month`,
    )
    .all(String(year)) as MonthSales[];
  const byMonth = new Map(rows.map((r) => [r.month, r]));
  return Array.from(
    { length: 12 },
    (_, i) =>
      byMonth.get(i + 1) ?? { month: i + 1, orders: 0, canceled: 0, units: 0, revenueCents: 0 },
  );
}
