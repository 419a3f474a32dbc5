import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * How a phone number input reads: its E.164 form (`+14155550123`), or why it has none. Only a
 * number that cannot be one is refused (`not_possible`: a length no number of its country
 * calling code has, an unknown calling code, letters); a possible number whose range is not
 * assigned today (`+12010000000`) is accepted, since numbering plans change faster than the
 * metadata we ship (docs/otp.md, "Operations": an input that is not a possible phone number is a
 * 400). An extension is refused rather than dropped: a code texted to the main line would not reach the
 * extension the user meant.
 */
export type PhoneReading = { e164: string } | { refused: 'not_possible' | 'extension' };

/**
 * Reads a phone number in any common notation. Inputs without a leading + are read as
 * international numbers too (no default country: we cannot guess the user's).
 */
export function readPhone(input: string): PhoneReading {
  const trimmed = input.trim();
  const candidate = trimmed.startsWith('+') ? trimmed : `+${trimmed.replace(/^00/, '')}`;
  const parsed = parsePhoneNumberFromString(candidate);
  if (parsed === undefined || !parsed.isPossible()) return { refused: 'not_possible' };
  if (parsed.ext !== undefined) return { refused: 'extension' };
  return { e164: parsed.number };
}

/**
 * The ISO 3166 country of an E.164 number, for the SMS country allow-list; undefined for a
 * possible number no country's plan assigns (`+12010000000`: NANP, but no region's range).
 */
export function phoneCountry(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country;
}
