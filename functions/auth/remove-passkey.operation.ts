import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { PasskeyPath } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'removePasskey',
  method: 'DELETE',
  path: '/auth/passkeys/{id}',
  entry: 'functions/auth/remove-passkey.ts',
  auth: 'user',
  tag: 'passkeys',
  title: 'Remove a passkey',
  summary: "Remove one of the caller's passkeys: it signs in no more",
  needs: { items: ['passkey'], accountCodeQueue: true },
  params: PasskeyPath,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.PasskeyRemoved, errors: ['not_found'] };
