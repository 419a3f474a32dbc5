import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricDefinitions } from '../../shared/domain/metrics.js';
import { bearer, dataOf } from '../../shared/http/client/api-client.js';
import {
  gatewayAPaymentEvent,
  gatewayASecret,
  gatewayBEvent,
  gatewayBHeader,
  gatewayBSecret,
  hexHmac,
  messagingNotification,
  messagingSecret,
} from '../domain/inbound-support.js';
import { eventually } from '../support/eventually.js';
import type { LocalService } from '../support/local-service.js';
import { logLines } from '../support/service-logs.js';
import { type AccountClient, uniqueEmail, uniquePhone } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import { order, startWebhookService } from './webhooks-support.js';

/**
 * The logs of a whole session hold nothing secret: every code, password, token, secret, email
 * address and phone number this session uses is looked for in everything the service printed at
 * LOG_LEVEL=debug — except the emails and texts the local outbox prints on purpose (they stand in
 * for SES and SNS, and are taken out exactly as the outbox lists them).
 */

/** Unique values for every secret the service is given, so any occurrence in a line is a leak. */
const configured = {
  GATEWAY_A_WEBHOOK_SECRET: gatewayASecret,
  GATEWAY_B_WEBHOOK_SECRET: gatewayBSecret,
  MESSAGING_APP_SECRET: messagingSecret,
  MESSAGING_VERIFY_TOKEN: `verify-token-${randomUUID()}`,
  JWT_SIGNING_KEYS: `jwt-seed-${randomUUID()}`,
  OTP_PEPPER: `otp-pepper-${randomUUID()}`,
};

let service: LocalService;
let client: AccountClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

/** Everything the session used that must never be logged. */
const secrets = new Set<string>(Object.values(configured));
/** Where the outbox sent something: its printed messages are taken out before the scan. */
const targets = new Set<string>();

beforeAll(async () => {
  ({ service, client, receiver, stop } = await startWebhookService({
    ...configured,
    LOG_LEVEL: 'debug',
    WEBHOOK_RETRY_DELAYS: '0,1,1,1,1',
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const keep = (...values: (string | undefined)[]) => {
  for (const value of values) if (value !== undefined && value !== '') secrets.add(value);
};

/** The newest code sent to `to`, kept as a secret. */
async function codeFor(to: string): Promise<string> {
  targets.add(to);
  const code = await client.codeFor(to);
  keep(code);
  return code;
}

async function tokensOf(answer: { status: number; body: { data?: Record<string, unknown> } }) {
  expect(answer.status).toBe(200);
  const data = answer.body.data as { access_token: string; refresh_token: string };
  keep(data.access_token, data.refresh_token);
  return data;
}

/** A session with every kind of secret in play: accounts, codes, tokens, webhooks, gateways. */
async function session(): Promise<void> {
  const email = uniqueEmail();
  const phone = uniquePhone();
  const [password, wrongPassword, resetPassword] = [
    `first password ${randomUUID()}`,
    `wrong password ${randomUUID()}`,
    `reset password ${randomUUID()}`,
  ];
  keep(email, phone, phone.slice(1), password, wrongPassword, resetPassword);
  targets.add(email);

  // Signup with a phone, activation, the phone's SMS code.
  expect((await client.post('/auth/signup', { name: 'Ada', email, phone, password })).status).toBe(
    201,
  );
  await tokensOf(
    await client.post('/auth/verify-signup-otp', { email, otp: await codeFor(email) }),
  );
  expect(
    (
      await client.post('/otp/verify/mobile', {
        mobile_number: phone,
        otp: await codeFor(phone),
      })
    ).status,
  ).toBe(200);

  // Logins right and wrong; refresh, then the rotated token presented again (reuse).
  expect((await client.post('/auth/login', { email, password: wrongPassword })).status).toBe(401);
  const login = await tokensOf(await client.post('/auth/login', { email, password }));
  await tokensOf(await client.post('/auth/refresh-token', { refresh_token: login.refresh_token }));
  await client.advanceClock(11);
  expect(
    (await client.post('/auth/refresh-token', { refresh_token: login.refresh_token })).status,
  ).toBe(401);

  // SMS login: a wrong code, then the right one.
  await client.post('/otp/send', { phone_number: phone, purpose: 'login' });
  const smsCode = await codeFor(phone);
  const wrongCode = smsCode === '000000' ? '000001' : '000000';
  expect(
    (await client.post('/otp/verify', { phone_number: phone, code: wrongCode, purpose: 'login' }))
      .status,
  ).toBe(400);
  const smsLogin = await tokensOf(
    await client.post('/otp/verify', { phone_number: phone, code: smsCode, purpose: 'login' }),
  );
  // A signed-in user's check of another number, and a second code inside its cooldown (429).
  const other = uniquePhone();
  keep(other, other.slice(1));
  const generic = { phone_number: other, purpose: 'generic' };
  await client.post('/otp/send', generic, smsLogin.access_token);
  await codeFor(other);
  expect((await client.post('/otp/send', generic, smsLogin.access_token)).status).toBe(429);
  // One account's generic codes go to at most 5 numbers an hour: the sixth is refused.
  const genericTo = (phone: string) => {
    // Its outbox print is taken out of the scan; the number itself must not be logged.
    targets.add(phone);
    keep(phone, phone.slice(1));
    return client.post(
      '/otp/send',
      { phone_number: phone, purpose: 'generic' },
      smsLogin.access_token,
    );
  };
  for (let number = 0; number < 4; number++) await genericTo(uniquePhone());
  expect((await genericTo(uniquePhone())).status).toBe(429);

  // Forgot password and reset.
  await client.post('/auth/forgot-password', { email });
  const reset = await client.post('/auth/reset-password-otp', {
    email,
    otp: await codeFor(email),
    new_password: resetPassword,
  });
  expect(reset.status).toBe(200);
  const owner = await tokensOf(
    await client.post('/auth/login', { email, password: resetPassword }),
  );
  const userId = (await client.call('GET', '/profile', { token: owner.access_token })).body.data
    .id as string;

  // An authenticator app: set up, then a login that stops at its ticket, a wrong code, the right.
  const enrolment = await client.call('POST', '/auth/mfa/totp/enrolment', {
    body: { current_password: resetPassword },
    token: owner.access_token,
  });
  const appSecret = enrolment.body.data.secret as string;
  keep(appSecret, enrolment.body.data.otpauth_uri);
  const appCode = async () => {
    const now = await client.advanceClock(0);
    const code = new TOTP({ secret: Secret.fromBase32(appSecret) }).generate({ timestamp: now });
    keep(code);
    return code;
  };
  const enabled = await client.call('POST', '/auth/mfa/totp', {
    body: { code: await appCode() },
    token: owner.access_token,
  });
  expect(enabled.status).toBe(200);
  keep(...(enabled.body.data.recovery_codes as string[]));
  await client.advanceClock(30);
  const challenged = await client.post('/auth/login', { email, password: resetPassword });
  const ticket = challenged.body.data.mfa_ticket as string;
  keep(ticket);
  const appNow = await appCode();
  const wrongApp = appNow === '000000' ? '000001' : '000000';
  expect(
    (await client.post('/auth/mfa/verify', { mfa_ticket: ticket, code: wrongApp })).status,
  ).toBe(400);
  await tokensOf(await client.post('/auth/mfa/verify', { mfa_ticket: ticket, code: appNow }));
  const replaced = await client.call('POST', '/auth/mfa/recovery-codes', {
    body: { current_password: resetPassword },
    token: owner.access_token,
  });
  expect(replaced.status).toBe(200);
  keep(...(replaced.body.data.recovery_codes as string[]));
  // A passkey sign-in with an answer no authenticator signed: refused (the browser test signs).
  const passkeyChallenge = (await client.post('/auth/passkeys/authentication-options')).body.data
    .challenge as string;
  const clientData = Buffer.from(
    JSON.stringify({ type: 'webauthn.get', challenge: passkeyChallenge, origin: service.origin }),
  ).toString('base64url');
  expect(
    (
      await client.post('/auth/passkeys/login', {
        credential: {
          id: 'Zm9yZ2VkLWNyZWRlbnRpYWw',
          rawId: 'Zm9yZ2VkLWNyZWRlbnRpYWw',
          type: 'public-key',
          response: { clientDataJSON: clientData, authenticatorData: 'AAAA', signature: 'AAAA' },
        },
      })
    ).status,
  ).toBe(401);

  // Webhooks: an endpoint that takes deliveries, one that fails them, a rotation, a test event.
  const register = (path: string) =>
    dataOf(
      client.api.POST('/webhooks', {
        headers: bearer(owner.access_token),
        body: { url: `${receiver.origin}${path}`, events: ['order.created', 'payment.successful'] },
      }),
    );
  const working = await register('/ok-scan');
  const failing = await register('/fail-scan');
  keep(working.secret, failing.secret);
  expect(
    (
      await client.api.POST('/events', {
        body: { type: 'order.created', account_id: userId, data: order },
      })
    ).response.status,
  ).toBe(201);
  const rotated = await dataOf(
    client.api.POST('/webhooks/{id}/rotate-secret', {
      params: { path: { id: working.id } },
      headers: bearer(owner.access_token),
    }),
  );
  keep(rotated.secret);
  await dataOf(
    client.api.POST('/webhooks/{id}/test', {
      params: { path: { id: working.id } },
      headers: bearer(owner.access_token),
    }),
  );

  // Gateways and the messaging platform: signed events, a bad signature, a replay, the handshake.
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const paymentB = JSON.stringify(
    gatewayBEvent('payment_intent.succeeded', {
      id: `pi_${randomUUID()}`,
      amount: 900,
      amount_received: 900,
      currency: 'eur',
      metadata: { account_id: userId },
    }),
  );
  const headerB = gatewayBHeader(paymentB, Date.now());
  keep(headerB);
  expect((await post('/gateway-b-webhook', paymentB, { 'stripe-signature': headerB })).status).toBe(
    200,
  );
  expect((await post('/gateway-b-webhook', paymentB, { 'stripe-signature': headerB })).status).toBe(
    200,
  );
  expect(
    (await post('/gateway-b-webhook', paymentB, { 'stripe-signature': 't=1,v1=00' })).status,
  ).toBe(401);
  const paymentA = JSON.stringify(
    gatewayAPaymentEvent('payment.captured', {
      id: `pay_${randomUUID()}`,
      amount: 10050,
      currency: 'INR',
      notes: { account_id: userId },
    }),
  );
  const signatureA = hexHmac(gatewayASecret, paymentA);
  keep(signatureA);
  expect(
    (await post('/gateway-a-webhook-listener', paymentA, { 'x-gateway-a-signature': signatureA }))
      .status,
  ).toBe(200);
  const handshake = await fetch(
    `${service.baseUrl}/messaging?hub.mode=subscribe&hub.verify_token=${configured.MESSAGING_VERIFY_TOKEN}&hub.challenge=4242`,
  );
  expect(handshake.status).toBe(200);
  const notification = JSON.stringify(messagingNotification(`wamid.${randomUUID()}`, 'sent'));
  const signatureM = `sha256=${hexHmac(messagingSecret, notification)}`;
  keep(signatureM);
  expect(
    (await post('/messaging', notification, { 'x-hub-signature-256': signatureM })).status,
  ).toBe(200);

  // Wait for the workers: the failing endpoint's five attempts, the deliveries to the working one.
  await eventually(async () =>
    logLines(service).filter(
      (line) => line.message === 'delivery attempt' && line.result === 'failed',
    ).length >= 1
      ? true
      : undefined,
  );
  await eventually(async () => (receiver.to('/ok-scan').length >= 3 ? true : undefined));
  for (const request of receiver.received) {
    keep(request.headers['x-service-signature'], request.headers['webhook-signature']);
  }
  // What the outbox holds for the failing endpoint's owner: the delivery-failed notice.
  await client.outbox(email);
}

/** What the service printed, less the emails and texts the outbox printed for `targets`. */
async function printedLessOutbox(): Promise<string> {
  let printed = service.output();
  for (const to of targets) {
    for (const message of await client.outbox(to)) {
      const block = `[outbox] ${message.channel} to ${to}${message.subject ? ` — ${message.subject}` : ''}\n${message.text}\n`;
      expect(printed, `the outbox printed its ${message.channel} to ${to}`).toContain(block);
      printed = printed.replace(block, '');
    }
  }
  return printed;
}

/** A secret's occurrences: codes only as whole numbers (a digit run elsewhere is no code). */
function occurrences(text: string, secret: string): string[] {
  const pattern = /^\d{6}$/.test(secret)
    ? new RegExp(`(?<!\\d)${secret}(?!\\d)`)
    : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  return text.split('\n').filter((line) => pattern.test(line));
}

describe('the logs of a whole session', { timeout: 180_000 }, () => {
  beforeAll(session, 180_000);

  it('hold no code, password, token, secret, email or phone number used in it', async () => {
    const printed = await printedLessOutbox();
    expect(secrets.size).toBeGreaterThan(30);
    const leaks = [...secrets].flatMap((secret) =>
      occurrences(printed, secret).map((line) => `${secret} in: ${line.slice(0, 300)}`),
    );
    expect(leaks).toEqual([]);
  });

  it('are JSON lines, each written inside a function naming it, its invocation and the work’s correlation id', async () => {
    const printed = await printedLessOutbox();
    const startUp =
      /^(Service listening on|Developer dashboard at|API reference at|Outbox|Webhook inbox at|First steps:) /;
    const lines = printed.split('\n').filter((line) => line !== '' && !startUp.test(line));
    expect(lines.length).toBeGreaterThan(100);
    const levels = new Set<unknown>();
    for (const line of lines) {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (!('_aws' in record)) levels.add(record.level);
      expect(record, line).toMatchObject({
        service: 'AccountOtpWebhookService-local',
        function_name: expect.any(String),
        function_request_id: expect.any(String),
        cold_start: expect.any(Boolean),
        correlation_id: expect.any(String),
      });
      if (record.message === 'request') {
        expect(record.api_request_id, line).toBe(record.correlation_id);
      }
    }
    expect([...levels].sort()).toEqual(expect.arrayContaining(['DEBUG', 'INFO']));
  });

  it('count every business metric the session moved', () => {
    const recorded = new Set(
      logLines(service)
        .filter((line) => '_aws' in line)
        .flatMap((line) =>
          (
            line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }
          ).CloudWatchMetrics.flatMap((directive) => directive.Metrics.map((m) => m.Name)),
        ),
    );
    // Not moved by this session, each held where it is: an endpoint is disabled only after days
    // of failures (test/domain/webhooks-lifecycle.test.ts); a deferral needs an endpoint at its
    // places or its rate (test/domain/webhooks-isolation.test.ts); a digest needs its day over
    // and a failed wake-up a failing Scheduler (test/domain/webhooks.test.ts).
    const elsewhere = new Set([
      'EndpointsAutoDisabled',
      'DeliveriesDeferred',
      'FailureDigestsSent',
      'LadderWakeFailed',
    ]);
    const moved = Object.keys(metricDefinitions).filter((name) => !elsewhere.has(name));
    expect([...recorded].sort()).toEqual(expect.arrayContaining(moved.sort()));
  });
});
