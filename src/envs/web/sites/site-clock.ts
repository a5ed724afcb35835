import type Database from 'better-sqlite3';

/**
 * The site clock of a built-in web app: the generated content's "now" (seconds since the epoch,
 * UTC) in the app's `meta` table (`key`, `value`), advanced one minute by each write. What a page
 * shows never depends on the wall clock, so the same actions give the same pages in every run.
 */
export const SITE_CLOCK_SCHEMA = 'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);';

/** Sets the clock of a newly built site (its `meta` table exists). */
export function setSiteNow(db: Database.Database, now: number): void {
  db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('now', ?)`).run(String(now));
}

/** The site clock: the generated content's "now", advanced by each write. */
export function siteNow(db: Database.Database): number {
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'now'`).get() as
    | { value: string }
    | undefined;
  return Number(row?.value ?? 0);
}

/**
 * A timestamp for new content: one minute after the latest write, so new content sorts after
 * everything generated, in the order it was written, whatever the wall clock says.
 */
export function nextTimestamp(db: Database.Database): number {
  const now = siteNow(db) + 60;
  db.prepare(`UPDATE meta SET value = ? WHERE key = 'now'`).run(String(now));
  return now;
}
