import * as v from 'valibot';
import { readPhone } from '../../domain/phone.js';

// Its own module, its calls marked pure (see ./fields.ts): the phone metadata (~120 KiB) reaches
// only the bundles whose schemas use `phone`.

/** Why an input is not a phone number we take, as the detail of its field says it. */
const refusals = {
  not_possible: 'must be a possible phone number in international format, e.g. +14155550123',
  extension: 'must be a phone number without an extension, e.g. +14155550123',
};

/** Accepts a possible phone number in any common notation and yields it in E.164. */
export const phone = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(32, 'must be at most 32 characters'),
  /* @__PURE__ */ v.examples(['+14155550123']),
  /* @__PURE__ */ v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const reading = readPhone(dataset.value);
    if ('refused' in reading) {
      addIssue({ message: refusals[reading.refused] });
      return NEVER;
    }
    return reading.e164;
  }),
);
