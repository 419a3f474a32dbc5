/**
 * The OTP routes' own limits, tighter than the per-client one of every route (docs/otp.md,
 * "Limits"). They sit in front of the engine's cooldown and hourly cap, which bound what is sent;
 * these bound how hard one address (or, for the phone lookup, one client) can be hammered at all.
 */

/** Requests that send a code, per target (phone or email) and minute. */
export const sendPerTarget = { scope: 'otp-send', limit: 3, windowSeconds: 60 };

/** Requests that verify a code, per target and minute (the attempt budget still applies). */
export const verifyPerTarget = { scope: 'otp-verify', limit: 10, windowSeconds: 60 };

/**
 * Phone lookups per client and minute: verifyPhoneAccount discloses whether a number is
 * registered, by design, so enumerating numbers must be slow.
 */
export const phoneLookupPerClient = { scope: 'phone-lookup', limit: 10, windowSeconds: 60 };
