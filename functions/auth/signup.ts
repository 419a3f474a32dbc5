import { dynamoUserRepository } from '../../shared/adapters/dynamo-users.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { systemClock } from '../../shared/domain/clock.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { SignupRequest } from '../../shared/http/schemas/phone-requests.js';

/**
 * POST /v1/auth/signup: an unverified account (201); the code's work is queued (the account-code
 * worker sends it), with the same AWS calls for a fresh and a taken email.
 */
export const handler = apiHandler({ body: SignupRequest, successStatus: 201 }, async ({ body }) =>
  signup({ users: dynamoUserRepository, clock: systemClock }, accountCodeQueue(), body),
);
