import { smsAllowedCountries, tableName } from '../config.js';
import type { OtpCheckDeps, OtpOperationDeps, PhoneRegistry } from '../domain/otp/operations.js';
import { accounts } from './accounts.js';
import { dynamo } from './dynamodb.js';
import { keys } from './keys.js';
import { otpChecks, otpCodes, smsCodes } from './otp-codes.js';

/** What the OTP operations work with, built once per cold start (the parts are cached). */
export async function otpOperationDeps(): Promise<OtpOperationDeps> {
  const [codes, directory] = await Promise.all([otpCodes(), accounts()]);
  return { codes, accounts: directory, smsCountries: smsAllowedCountries() };
}

/** The same for sendOtp, which only texts: no email sender in its bundle. */
export async function smsOperationDeps(): Promise<OtpOperationDeps> {
  const [codes, directory] = await Promise.all([smsCodes(), accounts()]);
  return { codes, accounts: directory, smsCountries: smsAllowedCountries() };
}

/** What the verify operations work with: no senders, so their bundles carry none. */
export async function otpCheckDeps(): Promise<OtpCheckDeps> {
  const [codes, directory] = await Promise.all([otpChecks(), accounts()]);
  return { codes, accounts: directory };
}

/** Registration of a phone is the presence of its uniqueness guard: one strongly consistent read. */
export const dynamoPhoneRegistry: PhoneRegistry = {
  async isRegistered(phone) {
    const result = await dynamo().get({
      TableName: tableName(),
      Key: keys.phoneGuard(phone),
      ProjectionExpression: 'pk',
      ConsistentRead: true,
    });
    return result.Item !== undefined;
  },
};
