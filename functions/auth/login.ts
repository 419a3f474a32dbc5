import { accountDeps } from '../../shared/adapters/accounts.js';
import { login } from '../../shared/domain/accounts/login.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { LoginRequest } from '../../shared/http/schemas/auth.js';
import { signInClient } from '../../shared/http/sign-in-client.js';

/** POST /v1/auth/login: email + password → token pair. */
export const handler = apiHandler({ body: LoginRequest }, async (request) =>
  login(await accountDeps(), request.body, signInClient(request)),
);
