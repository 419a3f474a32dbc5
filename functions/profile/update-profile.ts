import { accountDeps } from '../../shared/adapters/accounts.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { otpCodes } from '../../shared/adapters/otp-codes.js';
import { smsAllowedCountries } from '../../shared/config.js';
import { updateProfile } from '../../shared/domain/accounts/profile.js';
import { refuseUnlistedSmsCountry } from '../../shared/domain/otp/sms-countries.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { ProfileUpdateRequest } from '../../shared/http/schemas/phone-requests.js';

/** PUT /v1/profile/update: validated changes; a new email or phone waits for its code. */
export const handler = authenticatedHandler(
  { authenticate, body: ProfileUpdateRequest },
  async ({ principal, body }) => {
    // A phone we could never text cannot be verified: refuse it before changing anything.
    if (body.phone_number !== undefined) {
      refuseUnlistedSmsCountry(body.phone_number, smsAllowedCountries(), 'phone_number');
    }
    const codes = await otpCodes();
    return updateProfile(
      await accountDeps(),
      principal.userId,
      {
        name: body.name,
        email: body.email,
        phone: body.phone_number,
        gender: body.gender,
        onlineStatus: body.online_status,
      },
      ({ channel, target }) => codes.send(channel, target, 'verification'),
    );
  },
);
