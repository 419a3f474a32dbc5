import * as v from 'valibot';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'listPasskeys',
  method: 'GET',
  path: '/auth/passkeys',
  entry: 'functions/auth/list-passkeys.ts',
  auth: 'user',
  tag: 'passkeys',
  title: 'List passkeys',
  summary: "The caller's passkeys (at most 10), oldest first",
  needs: {},
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.array(r.Passkey), /* @__PURE__ */ v.maxLength(10)),
};
