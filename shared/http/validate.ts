import * as v from 'valibot';
import { type ErrorDetail, ServiceError } from '../domain/errors.js';
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

/** An object schema's issue for a declared key the input lacks (`expected` is its quoted name). */
const missingKeyIssue = (issue: v.BaseIssue<unknown>) =>
  issue.kind === 'schema' &&
  issue.type.endsWith('object') &&
  issue.received === 'undefined' &&
  issue.expected?.startsWith('"') === true;

/** valibot's own wording ("Invalid type: Expected number but received …"). */
const isValidatorWording = (message: string) => /^Invalid \w+: Expected /.test(message);

/**
 * What is wrong with one field, as a predicate a person can act on ("must be a number"); the
 * answer prefixes the field's name. Our schemas carry such messages; for a check that does not,
 * the validator's own wording is replaced rather than shown.
 */
function predicateOf(issue: v.BaseIssue<unknown>): string {
  if (missingKeyIssue(issue)) return 'is required';
  if (!isValidatorWording(issue.message)) return issue.message;
  const unit = Array.isArray(issue.input) ? 'items' : 'characters';
  switch (issue.type) {
    case 'string':
      return 'must be a string';
    case 'number':
      return 'must be a number';
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return 'must be an array';
    case 'object':
    case 'strict_object':
    case 'loose_object':
    case 'record':
      return 'must be an object';
    case 'min_length':
      return `must be at least ${issue.requirement} ${unit}`;
    case 'max_length':
      return `must be at most ${issue.requirement} ${unit}`;
    case 'picklist':
      return `must be one of: ${(issue.expected ?? '').replace(/[()"]/g, '').split(' | ').join(', ')}`;
    default:
      return 'is not valid';
  }
}

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

  const details = new Map<string, ErrorDetail>();
  for (const issue of result.issues) {
    // Unknown keys are listed below, all of them (valibot stops at the first).
    if (unknownKeyIssue(issue)) continue;
    const field = v.getDotPath(issue) ?? part;
    if (!details.has(field)) details.set(field, { field, message: predicateOf(issue) });
  }
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
