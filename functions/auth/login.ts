import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { login } from '../../shared/domain/accounts/login.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signInClient } from '../../shared/http/sign-in-client.js';
import { signInView } from '../../shared/http/views/accounts.js';
import { operation } from './login.operation.js';

/** POST /v1/auth/login: email + password → token pair. */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async (request) =>
  signInView(await login(accountDependencies(), request.body, signInClient(request))),
);
