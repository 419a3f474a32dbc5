import * as v from 'valibot';

/** Field schemas shared by several operations; each says what it accepts in its message. */

export const email = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.nonEmpty('is required'),
  v.maxLength(254, 'must be at most 254 characters'),
  v.email('must be a valid email address'),
);

export const password = v.pipe(
  v.string('must be a string'),
  v.minLength(8, 'must be at least 8 characters'),
  v.maxLength(128, 'must be at most 128 characters'),
);

export const otpCode = v.pipe(v.string('must be a string'), v.regex(/^\d{6}$/, 'must be 6 digits'));

export const name = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.nonEmpty('must not be empty'),
  v.maxLength(100, 'must be at most 100 characters'),
);

/** The documented set of gender values (docs/api.md). */
export const genders = ['female', 'male', 'non_binary', 'other', 'prefer_not_to_say'] as const;

export const gender = v.picklist(genders, `must be one of: ${genders.join(', ')}`);

/** Opaque identifiers we issue (`whk_…`, `dlv_…`): letters, digits, underscore. */
export const identifier = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an identifier we issued'),
);

/** page / per_page of list endpoints, as query strings. */
export const page = v.pipe(
  v.optional(v.string(), '1'),
  v.regex(/^[1-9]\d{0,5}$/, 'must be a positive integer'),
  v.transform(Number),
);

export const perPage = v.pipe(
  v.optional(v.string(), '20'),
  v.regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100'),
  v.transform(Number),
  v.maxValue(100, 'must be an integer from 1 to 100'),
);
