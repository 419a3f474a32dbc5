import { ServiceError } from '../errors.js';
import { phoneCountry } from '../phone.js';

/**
 * The SMS country allow-list (config SMS_ALLOWED_COUNTRIES): the defence against SMS pumping,
 * where bots request codes to premium-rate numbers in countries the product does not serve and
 * share the carrier's revenue. An empty list allows every country.
 */
export function refuseUnlistedSmsCountry(
  phone: string,
  allowedCountries: readonly string[],
  field: string,
): void {
  if (allowedCountries.length === 0) return;
  const country = phoneCountry(phone);
  if (country === undefined || !allowedCountries.includes(country)) {
    throw new ServiceError('invalid_request', 'We do not send text messages to this country', [
      { field, message: `must be a phone number in one of: ${allowedCountries.join(', ')}` },
    ]);
  }
}
