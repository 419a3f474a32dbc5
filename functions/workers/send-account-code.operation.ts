import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'sendAccountCode',
  entry: 'functions/workers/send-account-code.ts',
  surface: 'queue',
  queue: 'accountCode',
  summary: 'Issue and send the code of a signup, forgot-password or resend request',
  needs: {
    items: [
      'user',
      'emailGuard',
      'phoneGuard',
      'otp',
      'otpAttempts',
      'otpSends',
      'otpFailures',
      'smsSends',
      'signupNotice',
    ],
    email: true,
    sms: true,
    secrets: ['OTP_PEPPER'],
  },
});
