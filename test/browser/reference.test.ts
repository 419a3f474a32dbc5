import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * The API reference at `/docs` in a real Chromium (CHROMIUM_PATH or /usr/bin/chromium), as a
 * client developer reads it: it loads with no console error and nothing from another origin,
 * names operations in short titles, shows answers with the schemas' examples rather than
 * "string", and says which formats a date filter takes.
 */

let service: LocalService;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const origins = new Set<string>();

beforeAll(async () => {
  service = await startLocalService();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(30_000);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  await page.goto(`${service.origin}/docs`);
  await page.getByRole('menuitem', { name: 'webhooks' }).click();
  await page.getByRole('menuitem', { name: 'List deliveries' }).waitFor();
  // Redoc's footer logo is asked for once the menu has rendered: let the page settle.
  await page.waitForLoadState('networkidle');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** The text of the operation section Redoc renders for an operation id. */
const operationText = (operationId: string) =>
  page.locator(`[data-section-id="operation/${operationId}"]`).innerText();

describe('the API reference at /docs', () => {
  it('loads with no console error, and nothing from another origin', () => {
    expect(consoleErrors).toEqual([]);
    expect([...origins]).toEqual([service.origin]);
  });

  it('names every operation in its menu with a short title', async () => {
    const titles = await page
      .locator('[role="menuitem"][data-item-id*="operation/"]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('aria-label') ?? ''));
    expect(titles.length).toBeGreaterThan(30);
    // A few words each: no sentence, no clause after a semicolon.
    const long = titles.filter((title) => title.length > 40 || /[;:]/.test(title));
    expect(long).toEqual([]);
  });

  it('shows answers with the schemas’ examples', async () => {
    const registration = await operationText('registerWebhook');
    expect(registration).toContain('whk_q3zk2m7d4t6y1b5n8c2x');
    expect(registration).toContain('whsec_');
    expect(registration).toContain('https://api.example.com/webhooks');
    expect(registration).not.toContain('"string"');
    const login = await operationText('login');
    expect(login).toContain('ada@example.com');
    expect(login).toContain('usr_');
  });

  it('says which formats a date filter takes', async () => {
    const deliveries = await operationText('listWebhookDeliveries');
    expect(deliveries).toContain('created_after');
    expect(deliveries).toContain('YYYY-MM-DD');
    expect(deliveries).toContain('2026-01-31T12:00:00Z');
  });
});
