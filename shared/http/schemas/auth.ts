import * as v from 'valibot';
import { currentPassword, email, listQuery, name, otpCode, password } from './fields.js';
import { phone } from './phone.js';
import { sessionStatuses } from './vocabulary.js';

/** Request bodies of the account and session operations (docs/accounts.md, "Operations"). */

export const SignupRequest = /* @__PURE__ */ v.strictObject({
  name,
  email,
  phone: /* @__PURE__ */ v.optional(phone),
  password,
});

export const VerifySignupOtpRequest = /* @__PURE__ */ v.strictObject({ email, otp: otpCode });

export const LoginRequest = /* @__PURE__ */ v.strictObject({ email, password: currentPassword });

export const RefreshTokenRequest = /* @__PURE__ */ v.strictObject({
  refresh_token: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string('must be a string'),
    /* @__PURE__ */ v.nonEmpty('is required'),
    /* @__PURE__ */ v.maxLength(256, 'must be at most 256 characters'),
  ),
});

/**
 * `current_password` is required unless the account has no password yet (a contested signup's
 * activation answered `password_reset_required: true`); the use-case says which.
 */
export const ChangePasswordRequest = /* @__PURE__ */ v.strictObject({
  current_password: /* @__PURE__ */ v.optional(currentPassword),
  new_password: password,
});

export const ForgotPasswordRequest = /* @__PURE__ */ v.strictObject({ email });

export const ResetPasswordWithOtpRequest = /* @__PURE__ */ v.strictObject({
  email,
  otp: otpCode,
  new_password: password,
});

/** `DELETE /v1/auth/sessions/{id}`: a session id as the session list gives it. */
export const SessionPath = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string('must be a string'),
    /* @__PURE__ */ v.regex(
      /^ses_[A-Za-z0-9_-]{22}$/,
      'must be a session id from the session list',
    ),
  ),
});

/** The list every list's query takes: a session listed is `active` (live). */
export const ListSessionsQuery = /* @__PURE__ */ listQuery(sessionStatuses, {});

/** An authenticator app's setup, its removal: the current password first. */
export const CurrentPasswordRequest = /* @__PURE__ */ v.strictObject({
  current_password: currentPassword,
});

/** The first code of the app being set up. */
export const ConfirmTotpRequest = /* @__PURE__ */ v.strictObject({ code: otpCode });

const mfaTicket = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.nonEmpty('is required'),
  /* @__PURE__ */ v.maxLength(128, 'must be at most 128 characters'),
  /* @__PURE__ */ v.examples(['mfa_Q2hvb3NlIGEgbG9uZyByYW5kb20gdGlja2V0IGhlcmUgcGxlYXNl']),
);

const recoveryCode = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.nonEmpty('is required'),
  /* @__PURE__ */ v.maxLength(32, 'must be at most 32 characters'),
  /* @__PURE__ */ v.examples(['k3j7q-x2m9p']),
);

/** The ticket of a sign-in, and either a code of the app or a recovery code. */
export const VerifyMfaRequest = /* @__PURE__ */ v.union(
  [
    /* @__PURE__ */ v.strictObject({ mfa_ticket: mfaTicket, code: otpCode }),
    /* @__PURE__ */ v.strictObject({ mfa_ticket: mfaTicket, recovery_code: recoveryCode }),
  ],
  'must hold mfa_ticket and either code or recovery_code',
);

/** A base64url field of a WebAuthn answer, at most `max` characters. */
const base64url = (max: number) =>
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string('must be a string'),
    /* @__PURE__ */ v.nonEmpty('is required'),
    /* @__PURE__ */ v.maxLength(max, `must be at most ${max} characters`),
    /* @__PURE__ */ v.regex(/^[A-Za-z0-9_-]+$/, 'must be base64url'),
  );

/** What every WebAuthn answer holds besides its `response` (browsers may add more). */
const credentialFields = {
  id: /* @__PURE__ */ base64url(1024),
  rawId: /* @__PURE__ */ base64url(1024),
  type: /* @__PURE__ */ v.literal('public-key'),
  authenticatorAttachment: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(['platform', 'cross-platform']),
  ),
  clientExtensionResults: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.object({}), {}),
};

/** `POST /v1/auth/passkeys`: the browser's answer to the registration options, as JSON. */
export const AddPasskeyRequest = /* @__PURE__ */ v.strictObject({
  credential: /* @__PURE__ */ v.looseObject({
    ...credentialFields,
    response: /* @__PURE__ */ v.looseObject({
      clientDataJSON: /* @__PURE__ */ base64url(8192),
      attestationObject: /* @__PURE__ */ base64url(65_536),
      transports: /* @__PURE__ */ v.optional(
        /* @__PURE__ */ v.pipe(
          /* @__PURE__ */ v.array(
            /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.maxLength(32)),
          ),
          /* @__PURE__ */ v.maxLength(8),
        ),
      ),
    }),
  }),
});

/** `POST /v1/auth/passkeys/login`: the browser's answer to the sign-in options, as JSON. */
export const PasskeyLoginRequest = /* @__PURE__ */ v.strictObject({
  credential: /* @__PURE__ */ v.looseObject({
    ...credentialFields,
    response: /* @__PURE__ */ v.looseObject({
      clientDataJSON: /* @__PURE__ */ base64url(8192),
      authenticatorData: /* @__PURE__ */ base64url(8192),
      signature: /* @__PURE__ */ base64url(2048),
      userHandle: /* @__PURE__ */ v.optional(/* @__PURE__ */ base64url(256)),
    }),
  }),
});

/** `DELETE /v1/auth/passkeys/{id}`: a passkey's credential id, as the list gives it. */
export const PasskeyPath = /* @__PURE__ */ v.object({ id: /* @__PURE__ */ base64url(1024) });
