import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { Secret, TOTP } from 'otpauth';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
  type Response,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient, uniquePhone } from '../e2e/accounts-support.js';
import { checkContract } from '../support/contract.js';
import { relays } from '../support/dashboard-relay.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * The developer dashboard in a real Chromium (Debian's, at CHROMIUM_PATH or /usr/bin/chromium)
 * against the service as `npm start` runs it: a client developer's whole day, from sign-up to
 * sign-out, with every page scanned by axe and photographed at desktop and phone widths into
 * test-results/dashboard/ for a person to look at.
 */

const screenshots = resolve(import.meta.dirname, '..', '..', 'test-results', 'dashboard');
const widths = { desktop: { width: 1440, height: 900 }, phone: { width: 375, height: 740 } };

let service: LocalService;
let client: AccountClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** The API answers the page received, each held to the document as the e2e suite's are. */
const answersChecked: Promise<void>[] = [];
const contractFailures: string[] = [];

/**
 * Holds every API answer the page received to the document, and every call it made to the
 * relay's list: on AWS the distribution relays only the calls read from the dashboard's sources.
 */
function holdToContract(response: Response): void {
  const url = new URL(response.url());
  if (url.origin !== service.origin || !url.pathname.startsWith('/v1/')) return;
  const method = response.request().method();
  answersChecked.push(
    (async () => {
      if (!(await relays(method, url.pathname))) {
        contractFailures.push(`${method} ${url.pathname} is not relayed on AWS`);
      }
    })(),
  );
  answersChecked.push(
    (async () => {
      let text: string;
      try {
        text = await response.text();
      } catch {
        return; // The page navigated away before the body arrived: nothing was read.
      }
      const headers = new Headers(await response.allHeaders());
      const json = headers.get('content-type')?.startsWith('application/json') && text !== '';
      try {
        checkContract(response.request().method(), `${url.pathname.slice(3)}${url.search}`, {
          status: response.status(),
          headers,
          body: json ? JSON.parse(text) : text,
        });
      } catch (error) {
        contractFailures.push(error instanceof Error ? error.message : String(error));
      }
    })(),
  );
}

afterEach(async () => {
  await Promise.all(answersChecked.splice(0));
  expect(contractFailures.splice(0)).toEqual([]);
});

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  // Two attempts a minute apart: a failing receiver ends in `failed` after one clock move. A
  // per-client limit the test can exhaust on purpose, far above what the page itself sends.
  service = await startLocalService({ WEBHOOK_RETRY_DELAYS: '0,60', RATE_LIMIT_PER_MINUTE: '900' });
  client = new AccountClient(service);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  });
  context = await browser.newContext({ viewport: widths.desktop });
  context.on('response', holdToContract);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.origin });
  // Each step waits for what a person would see; none takes seconds when the page works.
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/**
 * At both widths, axe finds nothing serious or critical (in `scope`'s parts when given) and the
 * page is photographed, whole or (`fullPage: false`) its first screen.
 */
async function check(
  name: string,
  { fullPage = true, scope = [] as string[] } = {},
): Promise<void> {
  for (const [size, viewport] of Object.entries(widths)) {
    await page.setViewportSize(viewport);
    const axe = new AxeBuilder({ page });
    for (const selector of scope) axe.include(selector);
    const { violations } = await axe.analyze();
    const serious = violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target).join(' ')}`,
      );
    expect(serious, `${name} at ${viewport.width} px`).toEqual([]);
    await page.screenshot({ path: `${screenshots}/${name}-${size}.png`, fullPage });
  }
  await page.setViewportSize(widths.desktop);
}

/**
 * What a person waits for: the page within 30 s, checked every half second (a check that clicks
 * Refresh reads the list, the chart, the endpoint and an open delivery: about 600 calls a minute).
 */
const eventually = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 30_000, interval: 500 });

/** The open delivery's attempts as text ('' while it has none): never waits. */
const attemptsShown = async () => (await page.locator('ol.attempts').allTextContents()).join('');

// Code run in the page is written as text: this suite is type-checked without the DOM's types.

/** The label of the focused control (or its own text): where the keyboard is. */
const focusedLabel = () =>
  page.evaluate<string>(
    `(() => {
      const focused = document.activeElement;
      return (
        focused?.labels?.[0]?.textContent ?? focused?.getAttribute('aria-label') ?? focused?.textContent ?? ''
      );
    })()`,
  );

/** A computed style property of the first element `locator` finds. */
const styleOf = (locator: Locator, property: string) =>
  locator.evaluate(
    (element, name) =>
      (
        globalThis as unknown as {
          getComputedStyle(element: unknown): Record<string, string>;
        }
      ).getComputedStyle(element)[name],
    property,
  );

/**
 * Every visible control of the page at the phone width, measured: what sticks out of the
 * viewport, what a flex row squeezed (a checkbox smaller than 16 px), and whether the page or a
 * list scrolls sideways. Empty when everything fits.
 */
async function misfits(): Promise<string[]> {
  await page.setViewportSize(widths.phone);
  try {
    return await page.evaluate<string[]>(`(() => {
      const width = document.documentElement.clientWidth;
      const found = [];
      if (document.documentElement.scrollWidth > width) {
        found.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' px)');
      }
      for (const control of document.querySelectorAll('input, select, textarea, button, a, pre, table')) {
        const box = control.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (control.closest('.visually-hidden, .skip')) continue;
        const name = control.labels?.[0]?.textContent || control.getAttribute('aria-label') ||
          control.textContent.trim().slice(0, 40) || control.tagName;
        if (box.left < -0.5 || box.right > width + 0.5) {
          found.push(control.tagName + ' "' + name + '" spans ' + Math.round(box.left) + '–' + Math.round(box.right) + ' px');
        }
        if (control.type === 'checkbox' && (box.width < 16 || box.height < 16)) {
          found.push('checkbox "' + name + '" is ' + box.width.toFixed(1) + '×' + box.height.toFixed(1) + ' px');
        }
        const list = control.closest('.table-wrap');
        if (list !== null && list.scrollWidth > list.clientWidth + 1) {
          found.push('a list scrolls sideways (' + list.scrollWidth + ' px in ' + list.clientWidth + ')');
        }
      }
      return [...new Set(found)];
    })()`);
  } finally {
    await page.setViewportSize(widths.desktop);
  }
}

const inbox = async (name: string) =>
  (
    (await (await fetch(`${service.origin}/_local/inbox/${name}`)).json()) as {
      data: { signatures: Record<string, string> }[];
    }
  ).data;

describe('the developer dashboard', { timeout: 180_000 }, () => {
  const email = `dev-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const inboxName = `dash${Date.now()}`;

  it('serves itself with a strict Content-Security-Policy and no third-party origin', async () => {
    const response = await fetch(`${service.origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
  });

  it('renders the API reference at /docs from the served document, loading nothing from elsewhere', async () => {
    const fetched = new Set<string>();
    const errors: string[] = [];
    page.on('requestfinished', (request) => fetched.add(new URL(request.url()).origin));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${service.origin}/docs`);
    await eventually(() =>
      page.getByRole('heading', { name: /Account, OTP and webhook service/ }).isVisible(),
    ).toBe(true);
    await eventually(() => page.getByRole('menuitem', { name: 'auth' }).isVisible()).toBe(true);
    await page.getByRole('menuitem', { name: 'auth' }).click();
    await eventually(() =>
      page.getByRole('menuitem', { name: /Register an account/i }).isVisible(),
    ).toBe(true);
    // Redoc renders every operation at once: axe over all of it takes a minute here, so the test
    // scans the menu, the introduction and one whole section (docs/dashboard.md has the full scan).
    await check('reference', {
      fullPage: false,
      scope: ['.menu-content', '.api-info', '[data-section-id="tag/auth"]'],
    });
    expect([...fetched]).toEqual([service.origin]);
    // Not even Redoc's footer logo: the build serves it as an empty image of this origin.
    expect(errors).toEqual([]);
    page.removeAllListeners('requestfinished');
    page.removeAllListeners('console');
  });

  it('signs up, refuses a wrong code, and signs in with the emailed code', async () => {
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${service.origin}/`);
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await check('sign-in');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Dana Developer');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() =>
      page.getByText('Password must be at least 8 characters.').isVisible(),
    ).toBe(true);
    // Said once, as a sentence beside its field; the alert points there.
    expect(await page.getByRole('alert').textContent()).toBe('Correct the field marked below.');
    expect(await page.getByText(/must be at least 8 characters/i).count()).toBe(1);
    await check('sign-up-invalid');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Check your email' }).isVisible(),
    ).toBe(true);

    // Locally the page says where the code is.
    await expect
      .poll(() =>
        page.locator('main').getByRole('link', { name: 'local outbox' }).getAttribute('href'),
      )
      .toBe('/_local/outbox');
    await check('verify');
    const code = await client.codeFor(email);
    const wrong = code === '000000' ? '111111' : '000000';
    await page.getByLabel('Code', { exact: true }).fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/code/i);
    await check('verify-refused');

    // Past the code's 10 minutes: refused, and a new code works.
    await client.advanceClock(11 * 60);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/code/i);
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await eventually(() => page.getByRole('status').textContent()).toMatch(/new one is on its way/);
    await eventually(() => client.codeFor(email)).not.toBe(code);
    await page.getByLabel('Code', { exact: true }).fill(await client.codeFor(email));
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);
    await check('endpoints-empty');
    // Every request went to the page's own origin.
    expect(requests.filter((url) => !url.startsWith(service.origin))).toEqual([]);
  });

  it('registers an endpoint, shows its secret once, and delivers a test event to it', async () => {
    // An opened form takes the focus into its first field; Escape or Cancel closes it, and the
    // focus goes back to the button that opened it (not to the page's body).
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await eventually(() => focusedLabel()).toBe('Endpoint URL');
    await page.keyboard.press('Escape');
    await eventually(() => page.getByRole('form', { name: 'Add an endpoint' }).count()).toBe(0);
    await eventually(() => focusedLabel()).toBe('Add endpoint');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await eventually(() => focusedLabel()).toBe('Endpoint URL');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => page.getByRole('form', { name: 'Add an endpoint' }).count()).toBe(0);
    await eventually(() => focusedLabel()).toBe('Add endpoint');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(`${service.inboxOrigin}/inbox/${inboxName}`);
    await page.getByLabel('order.created').check();
    await page.getByLabel('payment.successful').check();
    await check('endpoint-register');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('textbox', { name: 'Signing secret' });
    await eventually(() => secretBox.isVisible()).toBe(true);
    // The form has closed: the focus is on the secret to copy, not on the page's body.
    await eventually(() => focusedLabel()).toBe('Signing secret');
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy the signing secret' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await check('endpoint-secret');

    // Shown once: a reload lists the endpoint without it.
    await page.reload();
    await page.getByRole('link', { name: `${service.inboxOrigin}/inbox/${inboxName}` }).click();
    await eventually(() => page.getByRole('button', { name: 'Send test event' }).isVisible()).toBe(
      true,
    );
    // The page is read before its heading shows; the focus goes to the heading once it does.
    const focusedOnArrival = await page.evaluate('document.activeElement.textContent');
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toMatch(
      /Test event sent/,
    );
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge').first().textContent();
    }).toBe('Delivered');
    await page.locator('tbody button.link').first().click();
    await eventually(() => attemptsShown()).toMatch(/succeeded.*200/);
    expect((await inbox(inboxName))[0]?.signatures).toMatchObject({
      webhook_signature: 'verified',
    });
    await check('endpoint-delivered');
    expect(focusedOnArrival).toBe(`${service.inboxOrigin}/inbox/${inboxName}`);
  });

  it('shows a failing receiver, retries, disables, enables and rotates the secret', async () => {
    await fetch(`${service.origin}/_local/inbox/${inboxName}`, {
      method: 'PUT',
      body: JSON.stringify({ status: 503 }),
    });
    await page.getByRole('button', { name: 'Send test event' }).click();
    // The first attempt fails and is recorded; past the second's time, it fails again and the
    // delivery is failed (the clock moves only once the first attempt's result is written).
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('.pager span').textContent();
    }).toMatch(/\(2 deliveries\)/);
    // A pending delivery's badge is a badge: one line, nothing of the account page's styles.
    const pending = page.locator('tbody .badge.pending').first();
    await eventually(() => pending.isVisible()).toBe(true);
    expect((await pending.boundingBox())?.height).toBeLessThan(30);
    expect(await styleOf(pending, 'marginBottom')).toBe('0px');
    await page.locator('tbody tr').first().locator('button.link').click();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return attemptsShown();
    }).toMatch(/failed · HTTP 503/);
    // Past the second attempt's time and the sweeper's minute of grace for its timer.
    await client.advanceClock(180);
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge').first().textContent();
    }).toBe('Failed');
    await eventually(() => attemptsShown()).toMatch(/Attempt 2 .*failed · HTTP 503/);
    await page.getByLabel('Status').selectOption('failed');
    await eventually(() => page.locator('.pager span').textContent()).toMatch(/\(1 delivery\)/);
    await check('endpoint-failed');

    await fetch(`${service.origin}/_local/inbox/${inboxName}`, {
      method: 'PUT',
      body: JSON.stringify({ status: 200 }),
    });
    // The failed delivery's attempts are still open under the filter.
    const facts = page.locator('dl.facts').first();
    await eventually(() => facts.textContent()).toMatch(/Failing since/);
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByLabel('Status').selectOption('');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge').first().textContent();
    }).toBe('Delivered');
    // The success cleared the endpoint's failing state, and the page read it again.
    await eventually(() => facts.textContent()).not.toMatch(/Failing since/);

    await page.getByRole('button', { name: 'Disable' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toBe(
      'Endpoint disabled.',
    );
    await eventually(() => page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(
      true,
    );
    await check('endpoint-disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toBe(
      'Endpoint enabled.',
    );

    // Deletion asks first; Escape answers no, and the focus is back on Delete.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => focusedLabel()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await eventually(() => focusedLabel()).toBe('Delete');
    // Rotation asks first, as deletion does; Cancel rotates nothing and gives the focus back to
    // Rotate secret, as Escape does.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const question = page.getByRole('region', { name: 'Rotate the signing secret?' });
    await eventually(() => question.isVisible()).toBe(true);
    await check('endpoint-rotate-confirm');
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
    await eventually(() => focusedLabel()).toBe('Rotate secret');
    await page.keyboard.press('Enter');
    await eventually(() => focusedLabel()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await eventually(() => question.count()).toBe(0);
    await eventually(() => focusedLabel()).toBe('Rotate secret');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Yes, rotate the secret' }).click();
    const rotated = page.getByRole('textbox', { name: 'Signing secret' });
    await eventually(() => rotated.isVisible()).toBe(true);
    expect(await rotated.inputValue()).toMatch(/^whsec_/);
    await eventually(() => focusedLabel()).toBe('Signing secret');
    await eventually(() => page.locator('.secret .warning').textContent()).toMatch(
      /previous one keeps signing deliveries until/,
    );
    await check('endpoint-rotated');

    // Saved, the edit form closes, says so, and gives the focus back to Edit.
    await page.getByRole('button', { name: 'Edit' }).click();
    await eventually(() => focusedLabel()).toBe('Endpoint URL');
    await page.getByLabel('Description').fill('Orders for the warehouse');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.getByRole('form', { name: 'Edit endpoint' }).count()).toBe(0);
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Endpoint saved.');
    await eventually(() => focusedLabel()).toBe('Edit');
    await eventually(() => page.locator('dl.facts').first().textContent()).toContain(
      'Orders for the warehouse',
    );
  });

  it('shows what a delivery sent and what came back: body, headers, each attempt’s answer and error, ids to copy', async () => {
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const list = page.locator('table.deliveries');
    expect(await list.locator('thead th').allTextContents()).toEqual([
      'Created',
      'Event',
      'Status',
      'HTTP',
      'Attempts',
      'Next attempt',
    ]);
    // The newest delivery: failed twice with 503, then delivered by the resend.
    const first = list.locator('tbody > tr').first();
    await eventually(() => first.locator('td[data-label="HTTP"]').textContent()).toBe('200');
    // Times to the second.
    expect(await first.locator('td[data-label="Created"]').textContent()).toMatch(/\d:\d\d:\d\d/);
    // Its details are still open from the retry above; otherwise open them.
    const toggle = first.getByRole('button');
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    const details = page.getByRole('region', { name: /^Delivery dlv_/ });
    await eventually(() => details.isVisible()).toBe(true);
    const deliveryId = (await details.getAttribute('aria-label'))!.replace('Delivery ', '');
    const [arrival] = (await inbox(inboxName)) as unknown as {
      event_id: string;
      headers: Record<string, string>;
    }[];
    // The request body, as posted, and the headers sent (signatures, never a secret).
    const body = details.getByLabel(`Request body of ${deliveryId}`, { exact: true });
    expect(JSON.parse((await body.textContent())!)).toMatchObject({
      id: arrival!.event_id,
      type: 'webhook.test',
    });
    const sent = await details.getByLabel('Headers sent', { exact: true }).textContent();
    expect(sent).toContain(`webhook-id: ${arrival!.event_id}`);
    expect(sent).toMatch(/webhook-signature: v1,/);
    expect(sent).toMatch(/webhook-timestamp: \d{10}/);
    expect(await details.innerHTML()).not.toContain('whsec_');
    // A failed attempt: its status, the response's headers and body, and the error, together.
    const failed = details.locator('li.attempt.failed').first();
    expect(await failed.textContent()).toMatch(/Attempt 2 · .*\d:\d\d:\d\d.* · failed · HTTP 503/);
    expect(await failed.textContent()).toContain('Error: the endpoint answered HTTP 503');
    expect(
      await failed.getByLabel('Response headers of attempt 2', { exact: true }).textContent(),
    ).toContain('content-type: application/json');
    expect(
      await failed.getByLabel('Response body of attempt 2', { exact: true }).textContent(),
    ).toContain('this inbox answers 503');
    // Ids shown and copied.
    await details.getByRole('button', { name: `Copy delivery id ${deliveryId}` }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(deliveryId);
    await details.getByRole('button', { name: `Copy the request body of ${deliveryId}` }).click();
    expect(JSON.parse(await page.evaluate('navigator.clipboard.readText()'))).toMatchObject({
      id: arrival!.event_id,
    });
    await check('endpoint-delivery-details');
  });

  it('resends a delivered delivery, sends the example of a subscribed type, and shows the event catalogue', async () => {
    const list = page.locator('table.deliveries');
    // The oldest delivery: the first test event, delivered at once.
    const oldest = list.locator('tbody > tr:not(.details-row)').last();
    await oldest.getByRole('button').click();
    const details = page.getByRole('region', { name: /^Delivery dlv_/ }).last();
    await details.getByRole('button', { name: 'Resend' }).click();
    await eventually(() => details.getByRole('status').textContent()).toMatch(/Sent again/);
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return oldest.locator('td[data-label="Attempts"]').textContent();
    }).toBe('2');
    const eventId = (await inbox(inboxName)).at(-1) as unknown as { event_id: string };
    expect(
      (await inbox(inboxName)).filter(
        (arrival) => (arrival as unknown as { event_id: string }).event_id === eventId.event_id,
      ),
    ).toHaveLength(2);

    await page.getByLabel('Example of a subscribed type').selectOption('payment.successful');
    await page.getByRole('button', { name: 'Send example' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toMatch(
      /Example payment.successful event sent/,
    );
    await eventually(async () => {
      const [latest] = (await inbox(inboxName)) as unknown as {
        event_type: string;
        signatures: Record<string, string>;
      }[];
      return latest?.event_type === 'payment.successful' ? latest.signatures : undefined;
    }).toMatchObject({ webhook_signature: 'verified' });

    await page.getByRole('link', { name: 'Event types' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Event types' }).isVisible()).toBe(
      true,
    );
    const updated = page.getByRole('region', { name: 'order.updated' });
    // The heading is there at once; the catalogue's sections once its request has answered.
    await eventually(() => updated.isVisible()).toBe(true);
    // Markdown rendered: `status` is code, and no backtick is left in the text.
    expect(await updated.locator('p code').allTextContents()).toEqual(['status']);
    expect(await page.locator('main').textContent()).not.toContain('`');
    expect(
      JSON.parse(
        (await updated.getByLabel('Example of order.updated', { exact: true }).textContent())!,
      ),
    ).toMatchObject({ type: 'order.updated', data: { status: 'preparing' } });
    await updated.getByText('JSON Schema').click();
    expect(
      await updated.getByLabel('Schema of order.updated', { exact: true }).textContent(),
    ).toContain('"order_id"');
    await check('event-types');
    await page.goBack();
  });

  it('finds one delivery by its event id or its id, and shows the week’s success rate on the service’s clock', async () => {
    await eventually(() =>
      page.getByRole('heading', { name: 'Deliveries', exact: true }).isVisible(),
    ).toBe(true);
    const [latest] = (await inbox(inboxName)) as unknown as { event_id: string }[];
    const find = page.getByRole('region', { name: 'Find a delivery' });
    await find.getByLabel('Delivery or event id').fill(latest!.event_id);
    await find.getByRole('button', { name: 'Find' }).click();
    const found = find.getByRole('region', { name: /^Delivery dlv_/ });
    await eventually(() => found.isVisible()).toBe(true);
    expect(await found.textContent()).toContain(latest!.event_id);
    const deliveryId = (await found.getAttribute('aria-label'))!.replace('Delivery ', '');
    await find.getByLabel('Delivery or event id').fill(deliveryId);
    await find.getByRole('button', { name: 'Find' }).click();
    await eventually(() => found.getAttribute('aria-label')).toBe(`Delivery ${deliveryId}`);
    await find.getByLabel('Delivery or event id').fill('evt_unknown');
    await find.getByRole('button', { name: 'Find' }).click();
    await eventually(() => find.getByRole('alert').textContent()).toBe(
      'No delivery with this id for this endpoint',
    );

    // 3 delivered (two test events, the example; a resend counts its delivery once), 0 failed.
    const chart = page.locator('figure.chart');
    await eventually(() => chart.locator('figcaption').textContent()).toMatch(
      /Success rate, last 7 days: 100% delivered \(3 of 3\)/,
    );
    // Counts on the bars (the run may straddle midnight), and the chart as wide as its panel.
    const counted = async (bars = chart.locator('text.count')) =>
      (await bars.allTextContents()).reduce((sum, count) => sum + Number(count), 0);
    expect(await counted()).toBe(3);
    const [svg, figure] = await Promise.all([
      chart.locator('svg').boundingBox(),
      chart.boundingBox(),
    ]);
    expect(svg!.width).toBeGreaterThan(figure!.width * 0.9);
    await check('endpoint-find');

    // Two days on the service's clock: today is two days later, and the deliveries moved left.
    const now = await client.advanceClock(2 * 86_400);
    // The page learns the service's time from the API's answers: the next Refresh after the move.
    const weekday = new Date(now).toLocaleDateString('en-US', { weekday: 'short' });
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await chart.locator('svg > g > text:not(.count)').allTextContents()).at(-1);
    }).toBe(weekday);
    expect(await counted()).toBe(3);
    // Nothing yet on the last two days: the week ends on the service's today.
    expect(await counted(chart.locator('svg > g:nth-last-of-type(-n+2) text.count'))).toBe(0);
  });

  it('keeps every control inside a 375 px screen, checkboxes whole and lists as cards', async () => {
    // The endpoint page with a delivery open.
    await page.locator('table.deliveries tbody > tr').first().getByRole('button').click();
    await eventually(() =>
      page
        .getByRole('region', { name: /^Delivery dlv_/ })
        .first()
        .isVisible(),
    ).toBe(true);
    expect(await misfits()).toEqual([]);
    await page.getByRole('button', { name: 'Edit' }).click();
    await eventually(() => focusedLabel()).toBe('Endpoint URL');
    expect(await misfits()).toEqual([]);
    await page.keyboard.press('Escape');
    await eventually(() => focusedLabel()).toBe('Edit');
    // The endpoints list, and the form that adds one.
    await page.getByRole('link', { name: '← Endpoints' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await eventually(() => focusedLabel()).toBe('Endpoint URL');
    await page
      .getByLabel('Endpoint URL')
      .fill(`https://example.com/${'very-long-path/'.repeat(12)}`);
    expect(await misfits()).toEqual([]);
    await page.setViewportSize(widths.phone);
    // The list is a stack of labelled cards: each cell a line of its own.
    const cell = page.locator('table.cards tbody td[data-label="Status"]').first();
    expect(await styleOf(cell, 'display')).toBe('block');
    await page.setViewportSize(widths.desktop);
    await check('endpoints-adding');
    await page.keyboard.press('Escape');
    for (const target of ['#/account', '#/event-types']) {
      await page.goto(`${service.origin}/${target}`);
      await eventually(() => page.locator('h1').count()).toBe(1);
      await eventually(() => page.locator('.loading, main > p:text("Loading…")').count()).toBe(0);
      expect(await misfits(), target).toEqual([]);
    }
  });

  it('shows the local inbox and outbox as pages, linked from the dashboard', async () => {
    await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
    await page.getByRole('link', { name: `${service.inboxOrigin}/inbox/${inboxName}` }).click();
    await page.getByRole('link', { name: 'Open this local inbox' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: `Inbox ${inboxName}` }).isVisible(),
    ).toBe(true);
    const arrival = page.locator('section.arrival').first();
    await eventually(() => arrival.isVisible()).toBe(true);
    expect(await arrival.locator('.badge').allTextContents()).toEqual(['verified', 'verified']);
    expect(await arrival.locator('dl.headers').textContent()).toMatch(/webhook-id: evt_/);
    expect(await arrival.locator('pre').textContent()).toContain('"payment.successful"');
    await check('local-inbox');
    const inboxMisfits = await misfits();
    // Its controls: fail every delivery, then recover.
    await page.getByRole('button', { name: 'Fail with 503' }).click();
    await eventually(() => page.getByText('Every delivery now gets HTTP 503').isVisible()).toBe(
      true,
    );
    await page.getByRole('button', { name: 'Recover: answer 200' }).click();
    await eventually(() => page.getByText('Every delivery now gets HTTP 200').isVisible()).toBe(
      true,
    );
    await page.getByRole('link', { name: 'Local inbox' }).click();
    await eventually(() => page.getByRole('link', { name: inboxName }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Local outbox' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Local outbox' }).isVisible()).toBe(
      true,
    );
    expect(await page.locator('.code-value').first().textContent()).toMatch(/^\d{6}$/);
    await check('local-outbox');
    // At 375 px too: a long address or subject (the failure digest's) wraps inside the screen.
    const outboxMisfits = await misfits();
    // JSON still, for scripts.
    expect(
      (await (await fetch(`${service.origin}/_local/inbox/${inboxName}`)).json()) as unknown,
    ).toMatchObject({ success: true });
    await page.goto(`${service.origin}/#/endpoints`);
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);
    expect(inboxMisfits).toEqual([]);
    expect(outboxMisfits).toEqual([]);
  });

  it('refuses a wrong password with the API’s message, and signs out', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Account' }).isVisible()).toBe(true);
    const passwordPanel = page.getByRole('region', { name: 'Change password' });
    await passwordPanel.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('another good password');
    await page.getByRole('button', { name: 'Change password' }).click();
    // Said once: beside its field as a sentence, the alert pointing there.
    await eventually(() => passwordPanel.getByRole('alert').textContent()).toBe(
      'Correct the field marked below.',
    );
    expect(await passwordPanel.getByText(/is incorrect/).allTextContents()).toEqual([
      'Current password is incorrect.',
    ]);
    await check('account');

    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/email or password/i);
    await check('sign-in-refused');
    // Then by keyboard alone: the password field, the new password, Enter.
    await page.getByLabel('Password', { exact: true }).focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);
    // The new page's heading has the focus, and Tab goes on to its first control.
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Webhook endpoints');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Add endpoint');
    await check('endpoints');
  });

  it('stays signed in past the access token’s 15 minutes and across a reload of the tab', async () => {
    const refreshes: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/auth/refresh-token')) refreshes.push(request.url());
    });
    await client.advanceClock(16 * 60);
    await page.getByRole('link', { name: `${service.inboxOrigin}/inbox/${inboxName}` }).click();
    await eventually(() => page.getByRole('button', { name: 'Send test event' }).isVisible()).toBe(
      true,
    );
    // The expired access token was refused once and replaced with the tab's refresh token.
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    await page.reload();
    await eventually(() => page.getByRole('button', { name: 'Send test event' }).isVisible()).toBe(
      true,
    );
    await page.getByRole('link', { name: '← Endpoints' }).click();
  });

  it('tells how long to wait when this client is over its rate limit', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    // The page and this test share one client (no API key, one address): spend its minute.
    await client.startOfNextMinute();
    let status = 0;
    while (status !== 429) status = (await fetch(`${service.baseUrl}/event-types`)).status;
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(
      /Try again in \d+ seconds?\.$/,
    );
    await check('sign-in-rate-limited');
    await client.advanceClock(60);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);
  });

  it('keeps the refresh token to this tab: a new tab starts signed out', async () => {
    const other = await context.newPage();
    await other.goto(`${service.origin}/`);
    await eventually(() => other.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await other.close();
  });

  it('lists sessions by browser and system, this browser first, in pages, and re-reads them after a password change', async () => {
    const agents = [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'curl/8.5.0',
      `Mozilla/5.0 (X11; Linux x86_64) ${'VeryLongToken/1.0 '.repeat(30)}`,
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    ];
    for (const agent of agents) {
      expect(
        (
          await client.call('POST', '/auth/login', {
            body: { email, password },
            headers: { 'user-agent': agent },
          })
        ).status,
      ).toBe(200);
    }
    await page.getByRole('link', { name: 'Account' }).click();
    const sessions = page.getByRole('region', { name: 'Where you are signed in' });
    const devices = sessions.locator('li .device');
    await eventually(() => devices.count()).toBe(5);
    // This browser first, by name; then the newest.
    const first = sessions.locator('li').first();
    expect(await first.textContent()).toContain('This browser');
    expect(await first.locator('.device').textContent()).toMatch(/^Chrom(e|ium) \d+ on Linux$/);
    expect(await first.locator('.hint').first().textContent()).toMatch(
      /^\S+ · last used (just now|\d+ minutes? ago) · signed in /,
    );
    expect(await devices.nth(1).textContent()).toBe('Chrome 131 on Android');
    expect(await sessions.locator('.pager span').textContent()).toMatch(
      /^Page 1 of 2 \(\d+ sessions\)$/,
    );
    await sessions.getByRole('button', { name: 'Next' }).click();
    const named = [...(await devices.allTextContents())];
    await sessions.getByRole('button', { name: 'Previous' }).click();
    named.push(...(await devices.allTextContents()));
    for (const expected of [
      'Firefox 128 on Windows',
      'Safari 17 on iOS',
      'Chrome 131 on macOS',
      'curl/8.5.0',
      // Not "Mozilla 5": every browser's agent starts with that token.
      'VeryLongToken 1 on Linux',
    ]) {
      expect(named).toContain(expected);
    }
    // One layout whatever the string: the row of the longest agent is as tall as the others.
    const heights = await sessions
      .locator('li')
      .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThan(8);
    // And as wide as the panel: the longest agent is cut short on its line, not past the screen.
    expect(await misfits()).toEqual([]);
    await check('account-sessions');

    // A password change signs the others out, and the list says so without a reload.
    const panel = page.getByRole('region', { name: 'Change password' });
    await panel.getByLabel('Current password').fill(password);
    await panel.getByLabel('New password').fill(`${password} 2`);
    await panel.getByRole('button', { name: 'Change password' }).click();
    await eventually(() => panel.getByRole('status').textContent()).toMatch(/Password changed/);
    await eventually(() => devices.count()).toBe(1);
    expect(await sessions.locator('.pager').count()).toBe(0);
    await panel.getByLabel('Current password').fill(`${password} 2`);
    await panel.getByLabel('New password').fill(password);
    await panel.getByRole('button', { name: 'Change password' }).click();
    await eventually(() => panel.getByRole('status').textContent()).toMatch(/Password changed/);
    await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
  });

  it('ends another session, then changes the email and adds a phone, each confirmed by its code', async () => {
    const elsewhere = await client.login(email, password);
    await page.getByRole('link', { name: 'Account' }).click();
    const sessions = page.getByRole('region', { name: 'Where you are signed in' });
    await eventually(() => sessions.locator('li').count()).toBe(2);
    await sessions.locator('li').filter({ hasNotText: 'This browser' }).getByRole('button').click();
    await eventually(() => sessions.locator('li').count()).toBe(1);
    expect((await client.call('GET', '/profile', { token: elsewhere.access_token })).status).toBe(
      401,
    );

    const profile = page.getByRole('region', { name: 'Profile' });
    const newEmail = `moved-${Date.now()}@example.com`;
    await profile.getByLabel('Email', { exact: true }).fill(newEmail);
    await profile.getByLabel('Current password').fill(password);
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await eventually(() =>
      profile.getByText(`Waiting for you to confirm ${newEmail}`).isVisible(),
    ).toBe(true);
    await check('account-pending-email');
    await profile.getByLabel(`Code sent to ${newEmail}`).fill(await client.codeFor(newEmail));
    await profile.getByRole('button', { name: 'Confirm email address' }).click();
    await eventually(() => profile.getByLabel('Email', { exact: true }).inputValue()).toBe(
      newEmail,
    );
    expect(await profile.getByText('Waiting for you to confirm').count()).toBe(0);

    const phone = uniquePhone();
    await profile.getByLabel('Phone number').fill(phone);
    await profile.getByLabel('Current password').fill(password);
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await eventually(() =>
      profile.getByText(`Waiting for you to confirm ${phone}`).isVisible(),
    ).toBe(true);
    await profile.getByLabel(`Code sent to ${phone}`).fill(await client.codeFor(phone));
    await profile.getByRole('button', { name: 'Confirm phone number' }).click();
    await eventually(() => profile.getByLabel('Phone number').inputValue()).toBe(phone);
    await check('account');
    expect((await client.login(newEmail, password)).user).toMatchObject({
      email: newEmail,
      phone,
      phone_verified: true,
    });

    await sessions.getByRole('button', { name: 'Sign out everywhere' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
  });

  const contested = `contested-${Date.now()}@example.com`;

  it('asks the owner of a contested signup to choose a password, which then signs in', async () => {
    await client.post('/auth/signup', {
      name: 'Mallory',
      email: contested,
      password: 'stranger pass 1',
    });
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Dana Developer');
    await page.getByLabel('Email', { exact: true }).fill(contested);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Check your email' }).isVisible(),
    ).toBe(true);
    await page.getByLabel('Code', { exact: true }).fill(await client.codeFor(contested));
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Set your password' }).isVisible(),
    ).toBe(true);
    await check('account-set-password');
    await page.getByLabel('New password').fill('my own chosen password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Change password' }).isVisible()).toBe(
      true,
    );
    expect((await client.login(contested, 'my own chosen password')).user.email).toBe(contested);
    expect((await client.post('/auth/login', { email: contested, password })).status).toBe(401);
  });

  it('sets up an authenticator app with its QR code, signs in with a code of it, makes new recovery codes, and removes it', async () => {
    // Signed in as the owner of the contested signup, on the account page (the test before).
    const ownPassword = 'my own chosen password';
    const setup = page.getByRole('form', { name: 'Set up an authenticator app' });
    await setup.getByLabel('Current password').fill(ownPassword);
    await setup.getByRole('button', { name: 'Set up an app' }).click();
    const confirm = page.getByRole('form', { name: 'Confirm the authenticator app' });
    await eventually(() => confirm.getByRole('img', { name: /QR code/ }).isVisible()).toBe(true);
    expect(
      await confirm
        .getByRole('img', { name: /QR code/ })
        .evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    const secret = (await confirm.locator('code').textContent())!;
    const codeAt = async (stepsLater: number) =>
      new TOTP({ secret: Secret.fromBase32(secret) }).generate({
        timestamp: (await client.advanceClock(0)) + stepsLater * 30_000,
      });
    await confirm.getByLabel('Code from the app').fill(await codeAt(0));
    await confirm.getByRole('button', { name: 'Turn on' }).click();

    const panel = page.getByRole('region', { name: 'Authenticator app' });
    await eventually(() => panel.locator('.recovery-codes li').count()).toBe(10);
    const recoveryCodes = await panel.locator('.recovery-codes li').allTextContents();
    const download = panel.getByRole('link', { name: 'Download the recovery codes' });
    expect(await download.getAttribute('download')).toBe('recovery-codes.txt');
    expect(decodeURIComponent((await download.getAttribute('href'))!)).toBe(
      `data:text/plain;charset=utf-8,${recoveryCodes.join('\n')}\n`,
    );
    await check('account-authenticator-app');
    expect(await client.messagesTo(contested)).toContainEqual(
      expect.stringContaining('An authenticator app was set up'),
    );

    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await page.getByLabel('Email', { exact: true }).fill(contested);
    await page.getByLabel('Password', { exact: true }).fill(ownPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Enter a code from your authenticator app' }).isVisible(),
    ).toBe(true);
    await check('sign-in-second-factor');
    await page.getByLabel('Code', { exact: true }).fill(await codeAt(1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);

    await page.getByRole('link', { name: 'Account' }).click();
    const replacement = page.getByRole('form', { name: 'Make new recovery codes' });
    await replacement.getByLabel('Current password').fill(ownPassword);
    await replacement.getByRole('button', { name: 'Make new codes' }).click();
    const appPanel = page.getByRole('region', { name: 'Authenticator app' });
    await eventually(() =>
      appPanel.getByText('New recovery codes: the earlier ones no longer work.').isVisible(),
    ).toBe(true);
    const newCodes = await appPanel.locator('.recovery-codes li').allTextContents();
    expect(newCodes).toHaveLength(10);
    expect(newCodes.filter((code) => recoveryCodes.includes(code))).toEqual([]);

    const removal = page.getByRole('form', { name: 'Remove the authenticator app' });
    await removal.getByLabel('Current password').fill(ownPassword);
    await removal.getByRole('button', { name: 'Remove the app' }).click();
    await eventually(() =>
      page
        .getByRole('region', { name: 'Authenticator app' })
        .getByText('The authenticator app was removed.')
        .isVisible(),
    ).toBe(true);
    // The account shows no app now: the set-up form is back, the removal gone.
    expect(await removal.count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Set up an authenticator app' }).isVisible()).toBe(
      true,
    );
    expect((await client.login(contested, ownPassword)).user.email).toBe(contested);
  });

  it('adds a passkey from the account page, signs in with it, and keeps it to its account', async () => {
    // Chromium's virtual authenticator: a platform authenticator with a screen lock, always
    // verified — what a phone or a laptop with a fingerprint reader is to the page.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const ownPassword = 'my own chosen password';
    const sent: string[] = [];
    const signedWith: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/auth/passkeys') && request.method() === 'POST') {
        sent.push(request.postData() ?? '');
      }
      if (request.url().endsWith('/v1/auth/passkeys/login')) {
        signedWith.push(request.postData() ?? '');
      }
    });
    await page.getByRole('link', { name: 'Account' }).click();
    const adding = page.getByRole('form', { name: 'Add a passkey' });
    await adding.getByLabel('Current password').fill(ownPassword);
    await adding.getByRole('button', { name: 'Add a passkey' }).click();
    const panel = page.getByRole('region', { name: 'Passkeys' });
    await eventually(() => panel.getByText('Passkey 1').isVisible()).toBe(true);
    await check('account-passkeys');
    expect(await client.messagesTo(contested)).toContainEqual(
      expect.stringContaining('A passkey was added'),
    );

    // Another account cannot take it: the browser's answer replayed into its own account is
    // refused (its challenge was this account's, and is used), and it cannot remove it.
    const other = await client.verifiedAccount();
    const replayed = await client.call('POST', '/auth/passkeys', {
      body: JSON.parse(sent[0]!),
      token: other.tokens.access_token,
    });
    expect(replayed.status).toBe(400);
    const credentialId = (JSON.parse(sent[0]!) as { credential: { id: string } }).credential.id;
    const takenAway = await client.call('DELETE', `/auth/passkeys/${credentialId}`, {
      token: other.tokens.access_token,
    });
    expect(takenAway.status).toBe(404);

    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await eventually(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Webhook endpoints' }).isVisible(),
    ).toBe(true);
    // The signed answer is good once: replayed, its challenge is gone.
    const replayedSignIn = await client.call('POST', '/auth/passkeys/login', {
      body: JSON.parse(signedWith[0]!),
    });
    expect(replayedSignIn.status).toBe(401);
    expect(replayedSignIn.body.error.code).toBe('invalid_credentials');
    // Signed in as the passkey's account, not as anyone else.
    await page.getByRole('link', { name: 'Account' }).click();
    await eventually(() =>
      page.getByRole('region', { name: 'Profile' }).getByLabel('Email').inputValue(),
    ).toBe(contested);

    await panel.getByRole('button', { name: 'Remove passkey 1' }).click();
    await eventually(() => panel.getByText('The passkey was removed.').isVisible()).toBe(true);
    expect(await panel.getByText('Passkey 1').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    // The authenticator still holds it; the service no longer takes it.
    await eventually(() => page.getByRole('alert').first().textContent()).toContain(
      'could not be verified',
    );
  });
});
