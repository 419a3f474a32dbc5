import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { CurrentPasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'passkeyRegistrationOptions',
  method: 'POST',
  path: '/auth/passkeys/registration-options',
  entry: 'functions/auth/passkey-registration-options.ts',
  auth: 'user',
  tag: 'passkeys',
  title: 'Start adding a passkey',
  summary:
    "Check the current password and answer the options of a new passkey's ceremony (navigator.credentials.create), good for 5 minutes",
  needs: { items: ['loginThrottle', 'passkeyChallenge'], passkeys: true },
  body: CurrentPasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.PasskeyOptions,
  errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
};
