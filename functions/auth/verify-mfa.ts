import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { mfaDependencies } from '../../shared/adapters/second-factor-wiring.js';
import { verifySecondFactor } from '../../shared/domain/accounts/second-factor.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signedInView } from '../../shared/http/views/accounts.js';
import { operation } from './verify-mfa.operation.js';

/** POST /v1/auth/mfa/verify: ticket + second factor → the token pair. */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async (request) => {
  const { body } = request;
  const signedIn = await verifySecondFactor(mfaDependencies(), {
    ticket: body.mfa_ticket,
    proof: 'code' in body ? { code: body.code } : { recoveryCode: body.recovery_code },
    source: request.sourceIp,
  });
  return signedInView(signedIn);
});
