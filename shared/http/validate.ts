import * as v from 'valibot';
import { type ErrorDetail, ServiceError } from '../domain/errors.js';
import { validationDetails } from '../domain/validation.js';
import { detailSentence } from './responses.js';

export type RequestPart = 'body' | 'query' | 'path';

/** The field names an object schema declares (looking through a pipe), if it is one. */
function declaredFields(schema: v.GenericSchema): Set<string> | undefined {
  if ('entries' in schema && typeof schema.entries === 'object' && schema.entries !== null) {
    return new Set(Object.keys(schema.entries));
  }
  if ('pipe' in schema && Array.isArray(schema.pipe) && schema.pipe[0] !== schema) {
    return declaredFields(schema.pipe[0] as v.GenericSchema);
  }
  return undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const unknownKeyIssue = (issue: v.BaseIssue<unknown>) =>
  issue.kind === 'schema' && issue.expected === 'never';

/**
 * Validates one part of a request. A failure is a 400 invalid_request with one detail per bad
 * field (the first problem of each), and one per unknown field, so a client can show every
 * mistake at once; the message lists them all as sentences.
 */
export function parseRequestPart<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  part: RequestPart,
): v.InferOutput<TSchema> {
  const fields = declaredFields(schema);
  if (fields !== undefined && !isPlainObject(input)) {
    throw new ServiceError('invalid_request', `The request ${part} is invalid`, [
      { field: part, message: 'must be a JSON object' },
    ]);
  }
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;

  // Unknown keys are listed below, all of them (valibot stops at the first).
  const details = new Map<string, ErrorDetail>(
    validationDetails(result.issues, { whole: part }, unknownKeyIssue).map((detail) => [
      detail.field,
      detail,
    ]),
  );
  if (fields !== undefined && isPlainObject(input)) {
    for (const key of Object.keys(input)) {
      if (!fields.has(key)) details.set(key, { field: key, message: 'is not a known field' });
    }
  }
  const found = [...details.values()];
  throw new ServiceError(
    'invalid_request',
    `The request ${part} is invalid: ${found.map(detailSentence).join('; ')}`,
    found,
  );
}
