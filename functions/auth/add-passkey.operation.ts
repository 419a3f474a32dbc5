import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { AddPasskeyRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'addPasskey',
  method: 'POST',
  path: '/auth/passkeys',
  entry: 'functions/auth/add-passkey.ts',
  auth: 'user',
  successStatus: 201,
  tag: 'passkeys',
  title: 'Add a passkey',
  summary:
    "Verify the browser's answer to the registration options and add the passkey: it then signs in without the password",
  needs: { items: ['passkey', 'passkeyChallenge'], accountCodeQueue: true, passkeys: true },
  body: AddPasskeyRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Passkey, errors: ['conflict'] };
