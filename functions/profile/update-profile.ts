import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { smsAllowedCountries } from '../../shared/config.js';
import { updateProfile } from '../../shared/domain/accounts/profile.js';
import { refuseUnlistedSmsCountry } from '../../shared/domain/otp/sms-countries.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { profileUpdateView } from '../../shared/http/views/accounts.js';
import { operation } from './update-profile.operation.js';

/**
 * PUT /v1/profile/update: validated changes; a new email or phone needs the current password and
 * waits as pending for its code (queued).
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => {
    // A phone we could never text cannot be verified: refuse it before changing anything.
    if (body.phone_number !== undefined) {
      refuseUnlistedSmsCountry(body.phone_number, smsAllowedCountries(), 'phone_number');
    }
    const result = await updateProfile(
      accountCodeDependencies(),
      { userId: principal.userId, source: sourceIp },
      {
        name: body.name,
        email: body.email,
        phone: body.phone_number,
        gender: body.gender,
        onlineStatus: body.online_status,
        currentPassword: body.current_password,
      },
    );
    return profileUpdateView(result);
  },
);
