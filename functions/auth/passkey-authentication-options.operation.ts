import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'passkeyAuthenticationOptions',
  method: 'POST',
  path: '/auth/passkeys/authentication-options',
  entry: 'functions/auth/passkey-authentication-options.ts',
  auth: 'none',
  tag: 'passkeys',
  title: 'Start a passkey sign-in',
  summary:
    'The options of a passkey sign-in (navigator.credentials.get): no email asked, good for 5 minutes',
  needs: { items: ['passkeyChallenge'], passkeys: true },
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.PasskeyOptions };
