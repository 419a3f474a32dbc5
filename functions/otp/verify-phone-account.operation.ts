import { phoneLookupPerClient } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifyPhoneAccountQuery } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifyPhoneAccount',
  method: 'GET',
  path: '/verify/phone',
  entry: 'functions/otp/verify-phone-account.ts',
  auth: 'none',
  tag: 'otp',
  title: 'Look up a phone number',
  summary: 'Whether a phone number is already registered',
  needs: { items: ['phoneGuard'] },
  query: VerifyPhoneAccountQuery,
  limits: [{ ...phoneLookupPerClient, per: 'client', key: ({ client }) => client }],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.PhoneRegistration };
