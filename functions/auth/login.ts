import { accountDeps } from '../../shared/adapters/accounts.js';
import { login } from '../../shared/domain/accounts/login.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { LoginRequest } from '../../shared/http/schemas/auth.js';

/** POST /v1/auth/login: email + password → token pair. */
export const handler = apiHandler({ body: LoginRequest }, async ({ body }) =>
  login(await accountDeps(), body),
);
