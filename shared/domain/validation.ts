import * as v from 'valibot';
import type { ErrorDetail } from './errors.js';

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
 * One detail per bad field (its first problem), as a predicate a person can act on. A field is
 * named by its dot path, below `prefix` when given (`data.total`); a problem with the input as a
 * whole is named `whole`. Issues `skip` selects (e.g. unknown keys, which a caller lists itself)
 * are left out. Used by request validation (shared/http/validate.ts) and by the domain's own
 * checks (event data), so both speak alike.
 */
export function validationDetails(
  issues: readonly v.BaseIssue<unknown>[],
  names: { whole: string; prefix?: string },
  skip: (issue: v.BaseIssue<unknown>) => boolean = () => false,
): ErrorDetail[] {
  const details = new Map<string, ErrorDetail>();
  for (const issue of issues) {
    if (skip(issue)) continue;
    const path = v.getDotPath(issue);
    const field =
      path === null ? names.whole : names.prefix === undefined ? path : `${names.prefix}.${path}`;
    if (!details.has(field)) details.set(field, { field, message: predicateOf(issue) });
  }
  return [...details.values()];
}
