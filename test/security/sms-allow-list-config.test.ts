import { afterEach, describe, expect, it } from 'vitest';
import { smsAllowedCountries } from '../../shared/config.js';

/**
 * An empty SMS country allow-list allows every country: convenient on a laptop, and on a deployed
 * stack an open door to SMS pumping (bots requesting codes to premium-rate numbers abroad). A
 * function running on Lambda must be told where texts may go (docs/otp.md,
 * "Decisions"): the stack names SMS_ALLOWED_COUNTRIES, and the function refuses to run without it.
 */

const saved = { ...process.env };

afterEach(() => {
  process.env = { ...saved };
});

describe('the SMS country allow-list on a deployed function', () => {
  it('fails, naming the variable, when SMS_ALLOWED_COUNTRIES is missing or empty on Lambda', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'AccountOtpWebhookService-SendOtp';
    delete process.env.SMS_ALLOWED_COUNTRIES;
    expect(() => smsAllowedCountries()).toThrow(/SMS_ALLOWED_COUNTRIES/);
    process.env.SMS_ALLOWED_COUNTRIES = ' , ';
    expect(() => smsAllowedCountries()).toThrow(/SMS_ALLOWED_COUNTRIES/);
  });

  it('reads the named countries on Lambda, and allows every country only outside it', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'AccountOtpWebhookService-SendOtp';
    process.env.SMS_ALLOWED_COUNTRIES = 'us,GB';
    expect(smsAllowedCountries()).toEqual(['US', 'GB']);
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    delete process.env.SMS_ALLOWED_COUNTRIES;
    expect(smsAllowedCountries()).toEqual([]);
  });
});
