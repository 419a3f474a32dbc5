import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { dynamoUserRepository } from '../../shared/adapters/user-repository.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { systemClock } from '../../shared/domain/clock.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './signup.operation.js';

/**
 * POST /v1/auth/signup: an unverified account (201); the code's work is queued (the account-code
 * worker sends it), with the same AWS calls for a fresh and a taken email.
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async ({ body }) =>
  signup({ users: dynamoUserRepository, clock: systemClock }, accountCodeQueue(), body),
);
