import * as v from 'valibot';
import { currentPassword, email, gender, name } from './fields.js';
import { phone } from './phone.js';

/** The request body of the profile update (docs/accounts.md, "Profile"). */

export const ProfileUpdateRequest = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.strictObject({
    name: /* @__PURE__ */ v.optional(name),
    email: /* @__PURE__ */ v.optional(email),
    phone_number: /* @__PURE__ */ v.optional(phone),
    gender: /* @__PURE__ */ v.optional(gender),
    online_status: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.boolean('must be a boolean')),
    /** Required with a new email or phone_number. */
    current_password: /* @__PURE__ */ v.optional(currentPassword),
  }),
  /* @__PURE__ */ v.check(
    ({ current_password: _password, ...changes }) =>
      Object.values(changes).some((value) => value !== undefined),
    'at least one of name, email, phone_number, gender, online_status is required',
  ),
);
