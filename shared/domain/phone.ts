import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * A phone number in E.164 (`+14155550123`), or undefined when the input cannot be a real number.
 * Inputs without a leading + are read as international numbers too (no default country: we
 * cannot guess the user's).
 */
export function toE164(input: string): string | undefined {
  const trimmed = input.trim();
  const candidate = trimmed.startsWith('+') ? trimmed : `+${trimmed.replace(/^00/, '')}`;
  const parsed = parsePhoneNumberFromString(candidate);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** The ISO 3166 country of an E.164 number, for the SMS country allow-list. */
export function phoneCountry(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country;
}
