import type { MfaDeps } from '../domain/accounts/second-factor.js';
import { systemClock } from '../domain/clock.js';
import { OtpEngine } from '../domain/otp/engine.js';
import { accountDependencies } from './accounts-wiring.js';
import { dynamoOtpStore } from './dynamo-otp-store.js';
import { lazily } from './lazily.js';

/**
 * The second factor's wiring: the accounts, and the OTP engine's budgets for its checks (no
 * queue: verifying a ticket sends nothing, and its bundle carries no SQS client). No pepper:
 * the engine hashes no code here (an app's codes are compared with its secret, recovery codes
 * are hashed on their own), so these functions are given none.
 */
export const mfaDependencies = /* @__PURE__ */ lazily((): MfaDeps => {
  const engine = new OtpEngine(dynamoOtpStore, systemClock, () =>
    Promise.reject(new Error('a second factor hashes no code with the OTP pepper')),
  );
  return {
    ...accountDependencies(),
    guard: (key, terms, matches) => engine.guard(key, terms, matches),
  };
});
