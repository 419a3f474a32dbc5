import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ProfileUpdateRequest } from '../../shared/http/schemas/profile.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'profileUpdate',
  method: 'PUT',
  path: '/profile/update',
  entry: 'functions/profile/update-profile.ts',
  auth: 'user',
  tag: 'profile',
  title: 'Update the profile',
  summary: 'Change name, gender or online status; a new email or phone number waits for its code',
  needs: {
    items: ['loginThrottle', 'phoneGuard'],
    accountCodeQueue: true,
    smsAllowList: true,
  },
  body: ProfileUpdateRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.ProfileUpdated,
  errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
};
