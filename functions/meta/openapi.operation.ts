import { type Answer, apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'openapi',
  method: 'GET',
  path: '/openapi.json',
  entry: 'functions/meta/openapi.ts',
  auth: 'none',
  tag: 'meta',
  title: 'This OpenAPI document',
  summary: 'This API as an OpenAPI 3.1 document',
  needs: {},
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { document: 'json' };
