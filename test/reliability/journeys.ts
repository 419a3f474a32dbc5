import { randomInt, randomUUID } from 'node:crypto';
import { gatewayBEvent, gatewayBHeader } from '../domain/inbound-support.js';
import type { Answer, Caller, CallOptions, Family } from './workload.js';

/**
 * What users of the service do, as the chaos and soak suites drive it: each journey retries a
 * step that failed on the service's side (5xx, or no answer) as a client would, and writes what
 * the service accepted into a ledger, which the suites check the stored state against.
 */

/** What the service said yes to, to hold the stored state to afterwards. */
export interface Ledger {
  /** Accounts whose signup answered 201, by email. */
  signups: Set<string>;
  /** Accounts activated (verify-signup-otp answered 200), by user id; a contested one is noted. */
  activated: Map<string, { email: string; contested: boolean }>;
  /** Password resets that answered 200, with an access token issued before each. */
  resets: { email: string; tokenBefore: string }[];
  /** Events published with 201, with the endpoints they were for. */
  published: Map<string, { accountId: string; endpoints: string[] }>;
  /** Inbound gateway events acknowledged with 200, with the account they publish to. */
  inbound: Map<string, { accountId: string }>;
  /** Journeys that could not finish, with the reason. */
  unfinished: string[];
  /**
   * Codes a failed request spent (its retry answered invalid_otp), so that a new one had to be
   * asked for: the consuming write went through but its answer was lost.
   */
  codesLost: number;
  /**
   * Sessions ended by a refresh whose answer was lost: the rotation went through, and its retry
   * past the 10 s grace reads as a stolen token's reuse, which revokes the session (by design).
   */
  sessionsRevokedByRetry: number;
}

export const newLedger = (): Ledger => ({
  signups: new Set(),
  activated: new Map(),
  resets: [],
  published: new Map(),
  inbound: new Map(),
  unfinished: [],
  codesLost: 0,
  sessionsRevokedByRetry: 0,
});

/** The gateway B secret the suites start the service with. */
export const gatewayBSecret = 'whsec_reliability_suite';

export interface JourneyOptions {
  /** How long a step is retried while the service fails, before the journey gives up. */
  patienceMs: number;
  /**
   * Waits out a 429's Retry-After before the step is tried again, as a client must: by default
   * in real time; the chaos suite moves the service clock instead.
   */
  waitOut?: (seconds: number) => Promise<void>;
  /** Stop at the next step boundary (the soak's end). */
  stopped?: () => boolean;
}

class JourneyStopped extends Error {}

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/**
 * Runs one step until the service answers it (anything but a 5xx or no answer), as a client
 * retries; answers the last answer. A 4xx is the step's answer, not a failure to retry.
 */
async function step(
  caller: Caller,
  family: Family,
  method: string,
  path: string,
  options: CallOptions & JourneyOptions,
): Promise<Answer & { retried: boolean }> {
  const deadline = Date.now() + options.patienceMs;
  for (let attempt = 0; ; attempt++) {
    if (options.stopped?.()) throw new JourneyStopped();
    const answer = await caller.call(family, method, path, options);
    const retryAfter = Number(answer.headers['retry-after'] ?? Number.NaN);
    if (answer.status === 429 && Number.isFinite(retryAfter) && Date.now() < deadline) {
      await (options.waitOut ?? ((seconds) => pause(seconds * 1000)))(retryAfter);
      continue;
    }
    const retried = attempt > 0;
    if (answer.status !== 0 && answer.status < 500) return { ...answer, retried };
    if (Date.now() > deadline) return { ...answer, retried };
    await pause(Math.min(2_000, 100 * 2 ** attempt));
  }
}

/** The newest 6-digit code the outbox holds for `to`, if any. */
async function latestCode(caller: Caller, to: string): Promise<string | undefined> {
  const answer = await caller.send('GET', `/_local/outbox?to=${encodeURIComponent(to)}`);
  const newest = (answer.body?.data as { text: string }[] | undefined)?.[0]?.text ?? '';
  return /\b(\d{6})\b/.exec(newest)?.[1];
}

/**
 * Waits for a 6-digit code sent to `to` other than `after` (one the journey already has). Past
 * half its patience without one, `askAgain` asks for a new code once, as a user would — a code
 * queued when the service was killed is gone with its in-process queue.
 */
async function codeFor(
  caller: Caller,
  to: string,
  options: JourneyOptions,
  after?: string,
  askAgain?: () => Promise<unknown>,
): Promise<string | undefined> {
  const started = Date.now();
  let asked = false;
  while (Date.now() < started + options.patienceMs) {
    if (options.stopped?.()) throw new JourneyStopped();
    const code = await latestCode(caller, to);
    if (code !== undefined && code !== after) return code;
    if (!asked && askAgain !== undefined && Date.now() > started + options.patienceMs / 2) {
      asked = true;
      await askAgain();
    }
    await pause(250);
  }
  return undefined;
}

/**
 * Redeems a code (`use`), asking for a new one once (`askAgain`) when the code was spent by a
 * failed try of this very step — its retry then answers invalid_otp — as a user would.
 */
async function redeem(
  caller: Caller,
  ledger: Ledger,
  to: string,
  code: string,
  options: JourneyOptions,
  use: (code: string) => Promise<Answer & { retried: boolean }>,
  askAgain: () => Promise<unknown>,
): Promise<Answer> {
  const answer = await use(code);
  if (!(answer.retried && answer.status === 400 && answer.body?.error?.code === 'invalid_otp')) {
    return answer;
  }
  ledger.codesLost += 1;
  await askAgain();
  const fresh = await codeFor(caller, to, options, code, askAgain);
  if (fresh === undefined) throw new Error(`no new code for ${to} after one was spent`);
  return use(fresh);
}

const expectStatus = (answer: Answer, wanted: number, what: string) => {
  if (answer.status !== wanted) {
    throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
};

export const uniqueEmail = () => `rel-${randomUUID().slice(0, 12)}@example.com`;
export const uniquePhone = () => `+1415${randomInt(2_000_000, 9_000_000)}`;

export interface Account {
  email: string;
  password: string;
  userId: string;
  accessToken: string;
  refreshToken: string;
}

/** Signup, the emailed code, activation: an account signed in. */
export async function signUp(
  caller: Caller,
  ledger: Ledger,
  options: JourneyOptions,
): Promise<Account> {
  const email = uniqueEmail();
  const password = `pw-${randomUUID()}`;
  const signup = await step(caller, 'signup', 'POST', '/v1/auth/signup', {
    ...options,
    body: { name: 'Reliability Suite', email, password },
  });
  expectStatus(signup, 201, 'signup');
  ledger.signups.add(email);
  const resend = () =>
    step(caller, 'signup', 'POST', '/v1/otp/resend/email', { ...options, body: { email } });
  const code = await codeFor(caller, email, options, undefined, resend);
  if (code === undefined) throw new Error(`the signup code for ${email} never arrived`);
  const activation = await redeem(
    caller,
    ledger,
    email,
    code,
    options,
    (otp) =>
      step(caller, 'activate', 'POST', '/v1/auth/verify-signup-otp', {
        ...options,
        body: { email, otp },
      }),
    resend,
  );
  expectStatus(activation, 200, 'verify-signup-otp');
  const data = activation.body.data;
  const contested = data.password_reset_required === true;
  ledger.activated.set(data.user.id, { email, contested });
  const account = {
    email,
    password,
    userId: data.user.id,
    accessToken: data.access_token,
    refreshToken: data.refresh_token,
  };
  // A signup retried after a failure can meet its own first try as another's: the account then
  // comes out with no password, and its owner sets one with a reset, as the answer says.
  if (contested) await resetPassword(caller, ledger, account, options);
  return account;
}

/** Forgot-password, the emailed code, a new password: the account's password is replaced. */
async function resetPassword(
  caller: Caller,
  ledger: Ledger,
  account: Account,
  options: JourneyOptions,
): Promise<void> {
  const before = await latestCode(caller, account.email);
  const forgot = () =>
    step(caller, 'recover', 'POST', '/v1/auth/forgot-password', {
      ...options,
      body: { email: account.email },
    });
  expectStatus(await forgot(), 200, 'forgot-password');
  const resetCode = await codeFor(caller, account.email, options, before, forgot);
  if (resetCode === undefined) throw new Error(`the reset code for ${account.email} never arrived`);
  const newPassword = `pw-${randomUUID()}`;
  const reset = await redeem(
    caller,
    ledger,
    account.email,
    resetCode,
    options,
    (otp) =>
      step(caller, 'recover', 'POST', '/v1/auth/reset-password-otp', {
        ...options,
        body: { email: account.email, otp, new_password: newPassword },
      }),
    forgot,
  );
  expectStatus(reset, 200, 'reset-password-otp');
  ledger.resets.push({ email: account.email, tokenBefore: account.accessToken });
  account.password = newPassword;
}

/**
 * A signed-in user's day: log in, refresh, read the profile and sessions, confirm a phone with an
 * SMS code, and (when `reset`) forget the password and reset it with the emailed code — after
 * which no session from before may still work.
 */
export async function useAccount(
  caller: Caller,
  ledger: Ledger,
  account: Account,
  options: JourneyOptions & { reset: boolean },
): Promise<void> {
  const logIn = async () => {
    const login = await step(caller, 'login', 'POST', '/v1/auth/login', {
      ...options,
      body: { email: account.email, password: account.password },
    });
    expectStatus(login, 200, 'login');
    return login.body.data;
  };
  let session: { access_token: string; refresh_token: string } = await logIn();
  const refreshed = await step(caller, 'refresh', 'POST', '/v1/auth/refresh-token', {
    ...options,
    body: { refresh_token: session.refresh_token },
  });
  if (refreshed.status === 401 && refreshed.retried) {
    // The rotation went through but its answer was lost past the grace: sign in again.
    ledger.sessionsRevokedByRetry += 1;
    session = await logIn();
  } else {
    expectStatus(refreshed, 200, 'refresh-token');
    session = refreshed.body.data;
  }
  const token = session.access_token;
  for (const path of ['/v1/profile', '/v1/auth/sessions']) {
    expectStatus(await step(caller, 'read', 'GET', path, { ...options, token }), 200, path);
  }
  const phone = uniquePhone();
  const send = () =>
    step(caller, 'otp', 'POST', '/v1/otp/send', {
      ...options,
      token,
      body: { phone_number: phone, purpose: 'generic' },
    });
  expectStatus(await send(), 200, 'otp/send');
  const smsCode = await codeFor(caller, phone, options, undefined, send);
  if (smsCode === undefined) throw new Error(`the SMS code for ${phone} never arrived`);
  const verified = await redeem(
    caller,
    ledger,
    phone,
    smsCode,
    options,
    (code) =>
      step(caller, 'otp', 'POST', '/v1/otp/verify', {
        ...options,
        token,
        body: { phone_number: phone, code, purpose: 'generic' },
      }),
    send,
  );
  expectStatus(verified, 200, 'otp/verify');
  account.accessToken = token;
  account.refreshToken = session.refresh_token;
  if (!options.reset) return;
  // The reset ends every session: the user signs in again with the new password.
  await resetPassword(caller, ledger, account, options);
  session = await logIn();
  account.accessToken = session.access_token;
  account.refreshToken = session.refresh_token;
}

/** Registers an endpoint of `account` at `url` for order events; answers its id. */
export async function registerEndpoint(
  caller: Caller,
  account: Account,
  url: string,
  options: JourneyOptions,
): Promise<string> {
  const registered = await step(caller, 'webhooks', 'POST', '/v1/webhooks', {
    ...options,
    token: account.accessToken,
    body: { url, events: ['order.created', 'payment.successful'] },
  });
  expectStatus(registered, 201, 'register webhook');
  return registered.body.data.id as string;
}

/**
 * Publishes one order event to the account, retried with the same Idempotency-Key (so a retry
 * after a failure cannot publish it twice).
 */
export async function publishOrder(
  caller: Caller,
  ledger: Ledger,
  accountId: string,
  endpoints: string[],
  options: JourneyOptions,
): Promise<void> {
  const published = await step(caller, 'publish', 'POST', '/v1/events', {
    ...options,
    headers: { 'idempotency-key': `order-${randomUUID()}` },
    body: {
      type: 'order.created',
      account_id: accountId,
      data: {
        order_id: `ord_${randomUUID().slice(0, 8)}`,
        status: 'placed',
        total: 19.99,
        currency: 'EUR',
      },
    },
  });
  expectStatus(published, 201, 'publish');
  ledger.published.set(published.body.data.id, { accountId, endpoints });
}

/**
 * A gateway B payment for the account, signed as the gateway signs it and resent as the gateway
 * resends until acknowledged; once processed it is published to the account as
 * payment.successful.
 */
export async function receivePayment(
  caller: Caller,
  ledger: Ledger,
  accountId: string,
  options: JourneyOptions,
): Promise<void> {
  const event = gatewayBEvent('payment_intent.succeeded', {
    id: `pi_${randomUUID().slice(0, 12)}`,
    amount: 2599,
    amount_received: 2599,
    currency: 'usd',
    metadata: { account_id: accountId },
  });
  const raw = JSON.stringify(event);
  const acknowledged = await step(caller, 'inbound', 'POST', '/v1/gateway-b-webhook', {
    ...options,
    raw,
    headers: { 'stripe-signature': gatewayBHeader(raw, Date.now(), gatewayBSecret) },
  });
  expectStatus(acknowledged, 200, 'gateway-b-webhook');
  ledger.inbound.set(event.id, { accountId });
}

/** Runs a journey, noting in the ledger why it could not finish (a stop is not a failure). */
export async function journey(
  ledger: Ledger,
  name: string,
  run: () => Promise<void>,
): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof JourneyStopped) return;
    ledger.unfinished.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
