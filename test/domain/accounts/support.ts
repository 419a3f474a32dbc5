import { dynamoLoginThrottle } from '../../../shared/adapters/dynamo-login-throttle.js';
import { dynamoSecondFactors } from '../../../shared/adapters/dynamo-second-factors.js';
import { dynamoSessionRepository } from '../../../shared/adapters/dynamo-sessions.js';
import { dynamoSignupNotices } from '../../../shared/adapters/dynamo-signup-notices.js';
import { dynamoUserRepository } from '../../../shared/adapters/dynamo-users.js';
import { AccessTokens, signingKeyFromSeed } from '../../../shared/domain/accounts/access-tokens.js';
import type { AccountDeps } from '../../../shared/domain/accounts/deps.js';
import { accountDirectory } from '../../../shared/domain/accounts/directory.js';
import { isChallenge, type SignInOutcome } from '../../../shared/domain/accounts/mfa-challenge.js';
import type {
  AccountCodeQueue,
  AccountCodes,
  SignInClient,
} from '../../../shared/domain/accounts/ports.js';
import type { SignedIn } from '../../../shared/domain/accounts/sessions.js';
import { signup } from '../../../shared/domain/accounts/signup.js';
import {
  type ActivationResponse,
  verifySignup,
} from '../../../shared/domain/accounts/signup-activation.js';
import { followUpSignup } from '../../../shared/domain/accounts/signup-follow-up.js';
import { ManualClock } from '../../../shared/domain/clock.js';
import { ServiceError } from '../../../shared/domain/errors.js';
import type { EmailMessage } from '../../../shared/domain/messages.js';
import type { AccountCodePurpose } from '../../../shared/domain/otp/purposes.js';

/**
 * Codes kept in memory: stands in for the OTP engine (tested on its own) so these tests exercise
 * the account rules against the real DynamoDB Local.
 */
export class MemoryCodes implements AccountCodes {
  readonly sent: {
    channel: string;
    target: string;
    purpose: AccountCodePurpose;
    code: string;
    subject?: string;
  }[] = [];

  async send(
    channel: 'email' | 'sms',
    target: string,
    purpose: AccountCodePurpose,
    _source: string,
    subject?: string,
  ) {
    const code = String(100000 + this.sent.length);
    this.sent.push({ channel, target, purpose, code, subject });
  }

  private consume(
    channel: 'email' | 'sms',
    target: string,
    purpose: AccountCodePurpose,
    code: string,
  ) {
    const index = this.sent.findIndex(
      (sent) =>
        sent.channel === channel &&
        sent.target === target &&
        sent.purpose === purpose &&
        sent.code === code,
    );
    if (index < 0) throw new ServiceError('invalid_otp', 'wrong code');
    const [consumed] = this.sent.splice(index, 1);
    return { subject: consumed?.subject };
  }

  async verifyThen<T>(
    channel: 'email' | 'sms',
    target: string,
    purpose: AccountCodePurpose,
    code: string,
    effect: (proof: { subject?: string }) => Promise<T>,
  ): Promise<T> {
    const proof = this.consume(channel, target, purpose, code);
    try {
      return await effect(proof);
    } catch (error) {
      if (!(error instanceof ServiceError))
        this.sent.push({ channel, target, purpose, code, ...proof });
      throw error;
    }
  }

  lastCode(target: string, purpose: AccountCodePurpose): string {
    const found = this.sent.filter((sent) => sent.target === target && sent.purpose === purpose);
    const last = found.at(-1);
    if (last === undefined) throw new Error(`no ${purpose} code for ${target}`);
    return last.code;
  }
}

export interface TestAccounts {
  deps: AccountDeps;
  clock: ManualClock;
  codes: MemoryCodes;
  /** Runs a signup's queued work at once (the account-code worker's part), with `codes`. */
  queue: AccountCodeQueue;
  mail: EmailMessage[];
}

/** A queue that does a signup's follow-up in the request's own call, as the worker would. */
export function inlineSignupQueue(
  deps: AccountDeps,
  codes: AccountCodes,
  mail: EmailMessage[],
): AccountCodeQueue {
  const followUp = {
    ...deps,
    mailer: { send: async (message: EmailMessage) => void mail.push(message) },
    accounts: accountDirectory(deps),
    codes,
    signupNotices: dynamoSignupNotices,
  };
  return {
    // Other work (notices, a signup phone's code) is the worker's, tested on its own.
    async request(work) {
      if (work.kind === 'signup') await followUpSignup(followUp, work.target, work.source);
    },
  };
}

/** Account deps on the test file's table, with a clock the test moves. */
export async function testAccounts(): Promise<TestAccounts> {
  const clock = new ManualClock(Date.now());
  const mail: EmailMessage[] = [];
  const tokens = {
    accessTokens: new AccessTokens(
      [await signingKeyFromSeed('test-seed')],
      'https://issuer.test',
      'test-audience',
      clock,
    ),
    refreshSuccessorKey: Buffer.alloc(32, 7),
  };
  const codes = new MemoryCodes();
  const deps: AccountDeps = {
    users: dynamoUserRepository,
    sessions: dynamoSessionRepository,
    throttle: dynamoLoginThrottle,
    secondFactors: dynamoSecondFactors,
    tokenKeys: async () => tokens,
    // The issuer's own keys verify as the published ones do.
    tokenVerifier: async () => tokens.accessTokens,
    clock,
  };
  return { clock, codes, queue: inlineSignupQueue(deps, codes, mail), mail, deps };
}

let counter = 0;
export const uniqueEmail = () => `user${Date.now()}${counter++}@example.com`;

/** Where the tests' sign-ins come from. */
export const testClient: SignInClient = {
  address: '192.0.2.10',
  source: '192.0.2.10',
  userAgent: 'vitest',
};

/** A verified account, signed in: its token pair. */
export async function signedUpUser(
  accounts: TestAccounts,
  email = uniqueEmail(),
  password = 'correct horse battery',
): Promise<ActivationResponse> {
  await signup({ ...accounts.deps, codeQueue: accounts.queue }, { name: 'Ada', email, password });
  return verifySignup(
    { ...accounts.deps, codes: accounts.codes, codeQueue: accounts.queue },
    { email, otp: accounts.codes.lastCode(email, 'signup') },
    testClient,
  );
}

/** The tokens of a sign-in of an account without a second factor (a ticket fails the test). */
export async function tokensOf(outcome: Promise<SignInOutcome>): Promise<SignedIn> {
  const answered = await outcome;
  if (isChallenge(answered)) throw new Error('expected tokens, got an MFA ticket');
  return answered;
}
