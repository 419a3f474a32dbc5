import { apiOperation } from '../../shared/http/operation.js';
import { ProfileUpdateRequest } from '../../shared/http/schemas/profile.js';

export const operation = apiOperation({
  name: 'profileUpdate',
  method: 'PUT',
  path: '/profile/update',
  entry: 'functions/profile/update-profile.ts',
  auth: 'user',
  tag: 'profile',
  summary: 'Change name, gender or online status; a new email or phone number waits for its code',
  needs: {
    items: ['loginThrottle', 'phoneGuard'],
    accountCodeQueue: true,
    smsAllowList: true,
  },
  body: ProfileUpdateRequest,
});
