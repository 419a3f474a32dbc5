import { renderSVG } from 'uqr';
import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { totpIssuer } from '../../shared/config.js';
import { startTotpEnrolment } from '../../shared/domain/accounts/second-factor.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './start-totp-enrolment.operation.js';

/** POST /v1/auth/mfa/totp/enrolment: a new secret for the caller's authenticator app. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => {
    const enrolment = await startTotpEnrolment(
      accountDependencies(),
      { userId: principal.userId, source: sourceIp },
      body.current_password,
      totpIssuer(),
    );
    return {
      secret: enrolment.secret,
      otpauth_uri: enrolment.uri,
      qr_svg: renderSVG(enrolment.uri),
      expires_in: enrolment.expiresIn,
    };
  },
);
