import { dynamoUserRepository } from '../../shared/adapters/dynamo-users.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { forgotPassword } from '../../shared/domain/accounts/forgot-password.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { ForgotPasswordRequest } from '../../shared/http/schemas/auth.js';

/**
 * POST /v1/auth/forgot-password: queues the reset code's work (the account-code worker sends it),
 * with the same AWS calls for every email.
 */
export const handler = apiHandler({ body: ForgotPasswordRequest }, async ({ body }) =>
  forgotPassword(dynamoUserRepository, accountCodeQueue(), body.email),
);
