import * as v from 'valibot';
import { toE164 } from '../../domain/phone.js';

// Its own module: the phone metadata (~120 KiB) then reaches only the bundles that parse phones.

/** Accepts a possible phone number in any common notation and yields it in E.164. */
export const phone = v.pipe(
  v.string('must be a string'),
  v.maxLength(32, 'must be at most 32 characters'),
  v.examples(['+14155550123']),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const e164 = toE164(dataset.value);
    if (e164 === undefined) {
      addIssue({
        message: 'must be a valid phone number in international format, e.g. +14155550123',
      });
      return NEVER;
    }
    return e164;
  }),
);
