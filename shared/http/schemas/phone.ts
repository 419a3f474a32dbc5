import * as v from 'valibot';
import { toE164 } from '../../domain/phone.js';

// Its own module, its calls marked pure (see ./fields.ts): the phone metadata (~120 KiB) reaches
// only the bundles whose schemas use `phone`.

/** Accepts a possible phone number in any common notation and yields it in E.164. */
export const phone = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(32, 'must be at most 32 characters'),
  /* @__PURE__ */ v.examples(['+14155550123']),
  /* @__PURE__ */ v.rawTransform(({ dataset, addIssue, NEVER }) => {
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
