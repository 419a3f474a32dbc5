import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'getProfile',
  method: 'GET',
  path: '/profile',
  entry: 'functions/profile/get-profile.ts',
  auth: 'user',
  tag: 'profile',
  title: 'Get the profile',
  summary: "The caller's own profile",
  needs: {},
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.User };
