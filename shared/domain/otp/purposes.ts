/**
 * Why a code was sent. A code only verifies for the channel, target and purpose it was sent for
 * (docs/otp.md); each purpose has its own lifetime, budgets and wording.
 */
export type OtpPurpose = AccountCodePurpose | SmsPurpose;

/** The codes the account use-cases send: a signup, a password reset, a new email or phone. */
export type AccountCodePurpose = 'signup' | 'password_reset' | 'verification';

/** The codes a client app asks for by text message (POST /v1/otp/send). */
export const smsPurposes = ['login', 'generic'] as const;
export type SmsPurpose = (typeof smsPurposes)[number];
