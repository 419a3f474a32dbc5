import type { OtpCheckDeps } from '../domain/otp/operations.js';
import { accountDirectoryDependency } from './accounts-wiring.js';
import { lazily } from './lazily.js';
import { otpChecks } from './otp-codes.js';

/**
 * The OTP area's wiring: what its use-cases work with on AWS (or the local stand-ins). Each getter
 * builds its object on first call and returns the same one after; the codes are a getter of that
 * object (the engine behind them is built once and asks for OTP_PEPPER when it first hashes a
 * code). What sends or queues lives in otp-sends-wiring.ts: this module imports no sender, queue
 * or codec, so the verifications, which import it, carry none (esbuild keeps what a module's top
 * level builds, even unused).
 */

/** Verifying a code (verifyOtp, verifyEmailOtp): no senders, no queue. */
export const otpCheckDependencies = /* @__PURE__ */ lazily(
  (): OtpCheckDeps => ({
    get codes() {
      return otpChecks();
    },
    accounts: accountDirectoryDependency(),
  }),
);
