import { optionalSetting, required, type SecretName } from '../config.js';
import { refreshing } from './refreshing.js';

/**
 * Secrets as the functions read them. On AWS a secret named X is given as `X_SECRET_ARN` and read
 * through the AWS Parameters and Secrets Lambda Extension (a localhost HTTP call authenticated by
 * the function's own session token: no Secrets Manager SDK in the bundle), which caches each value
 * for its SECRETS_MANAGER_TTL (the stack sets 300 s). A value is used here for
 * `secretRefreshMs`, then asked for again: a value changed in Secrets Manager reaches every
 * running function within the two together (6 minutes), with no deploy and no cold start.
 * Locally, and in tests, the plain variable X carries the value, read on every call.
 */

/** How long a value read from the extension is used before it is asked for again. */
export const secretRefreshMs = 60_000;

const readers = new Map<SecretName, () => Promise<string>>();

/**
 * A secret's value. Rotatable secrets hold several values separated by commas, newest first (see
 * `secretValues`).
 */
export function secret(name: SecretName): Promise<string> {
  const plain = optionalSetting(name);
  if (plain !== undefined) return Promise.resolve(plain);
  let reader = readers.get(name);
  if (reader === undefined) {
    reader = refreshing(`secret ${name}`, secretRefreshMs, () => readThroughExtension(name));
    readers.set(name, reader);
  }
  return reader();
}

/** The active values of a rotatable secret, newest first. */
export async function secretValues(name: SecretName): Promise<string[]> {
  return (await secret(name))
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

async function readThroughExtension(name: SecretName): Promise<string> {
  const arn = required(`${name}_SECRET_ARN`);
  const port = optionalSetting('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT') ?? '2773';
  const response = await fetch(
    `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(arn)}`,
    { headers: { 'X-Aws-Parameters-Secrets-Token': required('AWS_SESSION_TOKEN') } },
  );
  if (!response.ok) {
    throw new Error(`Secret ${name} could not be read: extension answered ${response.status}`);
  }
  const body = (await response.json()) as { SecretString?: string };
  if (typeof body.SecretString !== 'string' || body.SecretString === '') {
    throw new Error(`Secret ${name} is empty`);
  }
  return body.SecretString;
}
