import type Database from 'better-sqlite3';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from '../../browser/chromium.ts';
import { INSTANCE_HEADER, type RunningWebApp, startWebApp } from '../web-app.ts';
import { ADMIN_ACCOUNT } from './generate.ts';
import { storeApp } from './store-app.ts';

// A real Chromium: when none is installed, launchChromium fails with the way to get one.
describe('the store in a real browser', () => {
  let browser: LaunchedBrowser;
  let app: RunningWebApp;

  beforeAll(async () => {
    app = await startWebApp(storeApp);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A context on episode instance `id` (a fresh copy of the store), signed in unless told not. */
  async function episode(id: string, signedIn = true): Promise<BrowserContext> {
    const db = app.createInstance(id);
    const context = await browser.browser.newContext();
    await context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id });
    if (signedIn) {
      const cookies = Object.entries(storeApp.loginCookies?.(db) ?? {});
      await context.addCookies(cookies.map(([name, value]) => ({ name, value, url: app.url })));
    }
    return context;
  }

  it('signs in through the login form and comes back to the page asked for', async () => {
    const context = await episode('login', false);
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/admin/customers`);
      expect(new URL(page.url()).pathname).toBe('/admin/login');
      await page.getByLabel('Username').fill(ADMIN_ACCOUNT.username);
      await page.getByLabel('Password').fill(ADMIN_ACCOUNT.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/admin\/customers$/);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Customers');
      await expect(page.getByText(`Signed in as ${ADMIN_ACCOUNT.name}`).count()).resolves.toBe(1);
    } finally {
      await context.close();
    }
  });

  it('finds a product by search, saves a new price and shows it, in that episode only', async () => {
    const [a, b] = [await episode('price-a'), await episode('price-b')];
    try {
      const db = app.instance('price-a') as Database.Database;
      const { sku } = db.prepare('SELECT sku FROM products WHERE id = 11').get() as {
        sku: string;
      };
      const page = await a.newPage();
      await page.goto(`${app.url}/admin/products`);
      await page.getByRole('searchbox', { name: 'Search products' }).fill(sku);
      await page.getByRole('searchbox', { name: 'Search products' }).press('Enter');
      await page.waitForURL(/q=/);
      await page.locator('#grid tbody a').first().click();
      await page.waitForURL(/\/admin\/products\/11$/);
      await page.getByRole('textbox', { name: 'Price' }).fill('3.21');
      await page.getByRole('button', { name: 'Save product' }).click();
      await page.getByRole('status').waitFor();
      expect(await page.getByRole('status').textContent()).toBe('You saved the product.');
      expect(await page.locator('#summary-price').textContent()).toBe('$3.21');

      const other = await b.newPage();
      await other.goto(`${app.url}/admin/products/11`);
      expect(await other.locator('#summary-price').textContent()).not.toBe('$3.21');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('cancels an order only after the confirmation page', async () => {
    const context = await episode('cancel');
    try {
      const order = app
        .instance('cancel')
        ?.prepare("SELECT id, number FROM orders WHERE status = 'Pending'")
        .get() as { id: number; number: string };
      const page = await context.newPage();
      await page.goto(`${app.url}/admin/orders?status=Pending`);
      await page.getByRole('searchbox', { name: 'Search orders' }).fill(order.number);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('link', { name: `#${order.number}` }).click();
      await page.getByRole('link', { name: 'Cancel order' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        `Cancel order #${order.number}?`,
      );
      await page.getByRole('link', { name: 'No, keep the order' }).click();
      expect(await page.locator('#summary-status').textContent()).toBe('Pending');
      await page.getByRole('link', { name: 'Cancel order' }).click();
      await page.getByRole('button', { name: 'Yes, cancel the order' }).click();
      await page.getByRole('status').waitFor();
      expect(await page.locator('#summary-status').textContent()).toBe('Canceled');
    } finally {
      await context.close();
    }
  });
});
