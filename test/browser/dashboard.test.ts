import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import {
  type Browser,
  type BrowserContext,
  chromium,
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
const widths = { desktop: { width: 1280, height: 900 }, phone: { width: 360, height: 740 } };

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
  service = await startLocalService({ WEBHOOK_RETRY_DELAYS: '0,60', RATE_LIMIT_PER_MINUTE: '400' });
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
 * axe finds nothing serious or critical (in `scope`'s parts when given); then the page is
 * photographed at both widths, whole or (`fullPage: false`) its first screen.
 */
async function check(
  name: string,
  { fullPage = true, scope = [] as string[] } = {},
): Promise<void> {
  const axe = new AxeBuilder({ page });
  for (const selector of scope) axe.include(selector);
  const { violations } = await axe.analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target).join(' ')}`);
  expect(serious, name).toEqual([]);
  for (const [size, viewport] of Object.entries(widths)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${screenshots}/${name}-${size}.png`, fullPage });
  }
  await page.setViewportSize(widths.desktop);
}

/** What a person waits for: the page within 30 s, checked every quarter second. */
const eventually = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 30_000, interval: 250 });

/** The open delivery's attempts table as text ('' while it has none): never waits. */
const attemptsShown = async () => (await page.locator('table.attempts').allTextContents()).join('');

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
    // Redoc's footer asks for its logo from cdn.redoc.ly; the page's policy refuses it, so no
    // reader's address or referrer reaches a third party. Nothing else may fail.
    expect(
      errors.filter((error) => !/cdn\.redoc\.ly.*Content Security Policy/.test(error)),
    ).toEqual([]);
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
      page.getByText('password must be at least 8 characters').first().isVisible(),
    ).toBe(true);
    await check('sign-up-invalid');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() =>
      page.getByRole('heading', { name: 'Check your email' }).isVisible(),
    ).toBe(true);

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
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(`${service.inboxOrigin}/inbox/${inboxName}`);
    await page.getByLabel('order.created').check();
    await page.getByLabel('payment.successful').check();
    await check('endpoint-register');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('textbox', { name: 'Signing secret' });
    await eventually(() => secretBox.isVisible()).toBe(true);
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await check('endpoint-secret');

    // Shown once: a reload lists the endpoint without it.
    await page.reload();
    await page.getByRole('link', { name: `${service.inboxOrigin}/inbox/${inboxName}` }).click();
    await eventually(() => page.getByRole('button', { name: 'Send test event' }).isVisible()).toBe(
      true,
    );
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
    await page.locator('tbody tr').first().locator('button.link').click();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return attemptsShown();
    }).toMatch(/failed503/);
    // Past the second attempt's time and the sweeper's minute of grace for its timer.
    await client.advanceClock(180);
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge').first().textContent();
    }).toBe('Failed');
    await eventually(() => attemptsShown()).toMatch(/2.*failed503/);
    await page.getByLabel('Status').selectOption('failed');
    await eventually(() => page.locator('.pager span').textContent()).toMatch(/\(1 delivery\)/);
    await check('endpoint-failed');

    await fetch(`${service.origin}/_local/inbox/${inboxName}`, {
      method: 'PUT',
      body: JSON.stringify({ status: 200 }),
    });
    // The failed delivery's attempts are still open under the filter.
    await page.getByRole('button', { name: 'Retry this delivery' }).click();
    await page.getByLabel('Status').selectOption('');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge').first().textContent();
    }).toBe('Delivered');

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

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('textbox', { name: 'Signing secret' });
    await eventually(() => rotated.isVisible()).toBe(true);
    expect(await rotated.inputValue()).toMatch(/^whsec_/);
    await eventually(() => page.locator('.secret .warning').textContent()).toMatch(
      /previous one keeps signing deliveries until/,
    );
    await check('endpoint-rotated');
  });

  it('refuses a wrong password with the API’s message, and signs out', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Account' }).isVisible()).toBe(true);
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('another good password');
    await page.getByRole('button', { name: 'Change password' }).click();
    const passwordPanel = page.getByRole('region', { name: 'Change password' });
    await eventually(() => passwordPanel.getByRole('alert').textContent()).toBe(
      'The current password is incorrect',
    );
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

  it('asks the owner of a contested signup to choose a password, which then signs in', async () => {
    const contested = `contested-${Date.now()}@example.com`;
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
});
