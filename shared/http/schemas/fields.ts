import * as v from 'valibot';

/** Field schemas shared by several operations; each says what it accepts in its message. */

export const email = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.nonEmpty('is required'),
  v.maxLength(254, 'must be at most 254 characters'),
  v.email('must be a valid email address'),
  v.examples(['ada@example.com']),
);

export const password = v.pipe(
  v.string('must be a string'),
  v.minLength(8, 'must be at least 8 characters'),
  v.maxLength(128, 'must be at most 128 characters'),
  v.examples(['correct horse battery']),
);

// Each bound that a pattern implies is also written as a length, so the document states it.
export const otpCode = v.pipe(
  v.string('must be a string'),
  v.maxLength(6, 'must be 6 digits'),
  v.regex(/^\d{6}$/, 'must be 6 digits'),
  v.examples(['482913']),
);

export const name = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.nonEmpty('must not be empty'),
  v.maxLength(100, 'must be at most 100 characters'),
  v.examples(['Ada Lovelace']),
);

/** The documented set of gender values (docs/api.md). */
export const genders = ['female', 'male', 'non_binary', 'other', 'prefer_not_to_say'] as const;

export const gender = v.picklist(genders, `must be one of: ${genders.join(', ')}`);

/** Opaque identifiers we issue (`whk_…`, `dlv_…`): letters, digits, underscore. */
export const identifier = v.pipe(
  v.string('must be a string'),
  v.maxLength(64, 'must be an identifier we issued'),
  v.regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an identifier we issued'),
);

/** page / per_page of list endpoints, as query strings. */
export const page = v.pipe(
  v.optional(v.string(), '1'),
  v.maxLength(6, 'must be a positive integer'),
  v.regex(/^[1-9]\d{0,5}$/, 'must be a positive integer'),
  v.transform(Number),
);

export const perPage = v.pipe(
  v.optional(v.string(), '20'),
  v.maxLength(3, 'must be an integer from 1 to 100'),
  v.regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100'),
  v.transform(Number),
  v.maxValue(100, 'must be an integer from 1 to 100'),
);

const calendarDate = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 date-time. In a query string an unencoded `+` of the offset arrives as a space.
const dateTime =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+ -]\d{2}:\d{2})$/;

/** Epoch milliseconds of a date (that day's start in UTC) or an RFC 3339 date-time, if valid. */
function pointInTimeOf(text: string): number | undefined {
  const date = calendarDate.exec(text);
  if (date !== null) {
    const at = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    // Date.UTC rolls 2026-02-30 over to March: only a date that maps back to itself exists.
    return new Date(at).toISOString().startsWith(text) ? at : undefined;
  }
  const time = dateTime.exec(text);
  if (time === null || pointInTimeOf(time[1] ?? '') === undefined) return undefined;
  if (Number(time[2]) > 23 || Number(time[3]) > 59 || Number(time[4]) > 59) return undefined;
  const at = Date.parse(text.replace(/ (\d{2}:\d{2})$/, '+$1'));
  return Number.isNaN(at) ? undefined : at;
}

/**
 * A point in time a client filters or recovers by: a date `YYYY-MM-DD` (that day's start in UTC)
 * or an RFC 3339 date-time with its offset; parsed to an ISO 8601 UTC timestamp.
 */
const pointInTimeMessage =
  'must be a date (YYYY-MM-DD) or an RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z';

export const pointInTime = v.pipe(
  v.string('must be a string'),
  v.maxLength(40, pointInTimeMessage),
  v.check((text) => pointInTimeOf(text) !== undefined, pointInTimeMessage),
  v.transform((text) => new Date(pointInTimeOf(text) ?? 0).toISOString()),
);

/** A password being checked: any length up to the cap, so the check never reveals the rules. */
export const currentPassword = v.pipe(
  v.string('must be a string'),
  v.nonEmpty('is required'),
  v.maxLength(128, 'must be at most 128 characters'),
  v.examples(['correct horse battery']),
);
