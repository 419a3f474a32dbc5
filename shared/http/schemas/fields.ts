import * as v from 'valibot';
import { genders } from './vocabulary.js';

/**
 * Field schemas shared by several operations; each says what it accepts in its message.
 *
 * The request schemas are grouped by feature (auth.ts, profile.ts, otp.ts, webhooks.ts; the field
 * primitives here and in phone.ts). Every valibot call at a schema module's top level is marked
 * `@__PURE__`: esbuild cannot know valibot's calls have no side effects, and would otherwise keep
 * every schema of every module a handler imports — the login bundle would carry the signup
 * schema and, through it, the phone metadata. Marked, a schema no handler uses is dropped
 * (`test/architecture/schema-modules.test.ts` holds the marking).
 */

export const email = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.trim(),
  /* @__PURE__ */ v.toLowerCase(),
  /* @__PURE__ */ v.nonEmpty('is required'),
  /* @__PURE__ */ v.maxLength(254, 'must be at most 254 characters'),
  /* @__PURE__ */ v.email('must be a valid email address'),
  /* @__PURE__ */ v.examples(['ada@example.com']),
);

export const password = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.minLength(8, 'must be at least 8 characters'),
  /* @__PURE__ */ v.maxLength(128, 'must be at most 128 characters'),
  /* @__PURE__ */ v.examples(['correct horse battery']),
);

// Each bound that a pattern implies is also written as a length, so the document states it.
export const otpCode = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(6, 'must be 6 digits'),
  /* @__PURE__ */ v.regex(/^\d{6}$/, 'must be 6 digits'),
  /* @__PURE__ */ v.examples(['482913']),
);

export const name = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.trim(),
  /* @__PURE__ */ v.nonEmpty('must not be empty'),
  /* @__PURE__ */ v.maxLength(100, 'must be at most 100 characters'),
  /* @__PURE__ */ v.examples(['Ada Lovelace']),
);

export const gender = /* @__PURE__ */ v.picklist(
  genders,
  `must be one of: ${/* @__PURE__ */ genders.join(', ')}`,
);

/** Opaque identifiers we issue (`whk_…`, `dlv_…`): letters, digits, underscore. */
export const identifier = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(64, 'must be an identifier we issued'),
  /* @__PURE__ */ v.regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an identifier we issued'),
);

/** page / per_page of list endpoints, as query strings. */
export const page = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string(), '1'),
  /* @__PURE__ */ v.maxLength(6, 'must be a positive integer'),
  /* @__PURE__ */ v.regex(/^[1-9]\d{0,5}$/, 'must be a positive integer'),
  /* @__PURE__ */ v.transform(Number),
);

export const perPage = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string(), '20'),
  /* @__PURE__ */ v.maxLength(3, 'must be an integer from 1 to 100'),
  /* @__PURE__ */ v.regex(/^[1-9]\d{0,2}$/, 'must be an integer from 1 to 100'),
  /* @__PURE__ */ v.transform(Number),
  /* @__PURE__ */ v.maxValue(100, 'must be an integer from 1 to 100'),
);

/** Where a page starts: the `meta.next_cursor` of the page before it, as it was given. */
export const cursor = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(1024, 'must be the meta.next_cursor of an earlier page'),
  /* @__PURE__ */ v.regex(/^[A-Za-z0-9_-]+$/, 'must be the meta.next_cursor of an earlier page'),
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

export const pointInTime = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.description(
    'A date, YYYY-MM-DD (the start of that day in UTC), or an RFC 3339 date-time with its offset (YYYY-MM-DDThh:mm:ssZ, or +hh:mm).',
  ),
  /* @__PURE__ */ v.examples(['2026-01-31', '2026-01-31T12:00:00Z']),
  /* @__PURE__ */ v.maxLength(40, pointInTimeMessage),
  /* @__PURE__ */ v.check((text) => pointInTimeOf(text) !== undefined, pointInTimeMessage),
  /* @__PURE__ */ v.transform((text) => new Date(pointInTimeOf(text) ?? 0).toISOString()),
);

/** A password being checked: any length up to the cap, so the check never reveals the rules. */
export const currentPassword = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.nonEmpty('is required'),
  /* @__PURE__ */ v.maxLength(128, 'must be at most 128 characters'),
  /* @__PURE__ */ v.examples(['correct horse battery']),
);

/** One of `options`, refused in words that list them. */
export const oneOf = <const TOptions extends v.PicklistOptions>(options: TOptions) =>
  /* @__PURE__ */ v.picklist(options, `must be one of: ${options.join(', ')}`);

/**
 * The query every list takes (docs/webhooks.md, "Lists and filters"): page, per_page, a
 * `status` among `statuses`, `more` (a list's own filters) and the creation window, in the order
 * their refusals are listed, and the cursor of a page.
 */
export const listQuery = <const TStatuses extends v.PicklistOptions, TMore extends v.ObjectEntries>(
  statuses: TStatuses,
  more: TMore,
) =>
  /* @__PURE__ */ v.strictObject({
    page,
    per_page: perPage,
    status: /* @__PURE__ */ v.optional(/* @__PURE__ */ oneOf(statuses)),
    ...more,
    created_after: /* @__PURE__ */ v.optional(pointInTime),
    created_before: /* @__PURE__ */ v.optional(pointInTime),
    cursor: /* @__PURE__ */ v.optional(cursor),
  });
