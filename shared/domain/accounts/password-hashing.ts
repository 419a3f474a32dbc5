import { randomBytes, timingSafeEqual } from 'node:crypto';
import { argon2id } from 'hash-wasm';

/**
 * Password hashing (contract.md, "Identity and sessions"): Argon2id with OWASP's first-choice
 * parameters, stored as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) so the
 * parameters travel with each hash and can be raised later; `needsRehash` tells login to upgrade
 * an old hash while it holds the plain password.
 *
 * hash-wasm runs Argon2 in WebAssembly inlined in its JS: it bundles for ARM64 Lambda with no
 * native build. Measured on the 2-core dev machine: ~60–95 ms per hash (docs/accounts.md).
 */

export interface Argon2Parameters {
  /** Memory in KiB. @default 19456 (19 MiB) */
  memoryKib: number;
  /** Passes over memory. @default 2 */
  iterations: number;
  /** Lanes. @default 1 */
  parallelism: number;
}

export const currentParameters: Argon2Parameters = {
  memoryKib: 19 * 1024,
  iterations: 2,
  parallelism: 1,
};

const saltBytes = 16;
const hashBytes = 32;
const phcPattern =
  /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface ParsedHash {
  parameters: Argon2Parameters;
  salt: Buffer;
  hash: Buffer;
}

function parse(phc: string): ParsedHash | undefined {
  const found = phcPattern.exec(phc);
  if (!found) return undefined;
  const [, m, t, p, salt, hash] = found;
  return {
    parameters: { memoryKib: Number(m), iterations: Number(t), parallelism: Number(p) },
    salt: Buffer.from(salt!, 'base64'),
    hash: Buffer.from(hash!, 'base64'),
  };
}

async function derive(
  password: string,
  salt: Uint8Array,
  parameters: Argon2Parameters,
  length: number,
): Promise<Uint8Array> {
  return argon2id({
    password: password.normalize('NFKC'),
    salt,
    memorySize: parameters.memoryKib,
    iterations: parameters.iterations,
    parallelism: parameters.parallelism,
    hashLength: length,
    outputType: 'binary',
  });
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** A new PHC string for the password, with a fresh random salt. */
export async function hashPassword(
  password: string,
  parameters: Argon2Parameters = currentParameters,
): Promise<string> {
  const salt = randomBytes(saltBytes);
  const hash = await derive(password, salt, parameters, hashBytes);
  const { memoryKib: m, iterations: t, parallelism: p } = parameters;
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(hash)}`;
}

/**
 * Whether the password matches the PHC string. The comparison is constant-time: a byte-by-byte
 * early exit would let an attacker learn the hash one byte at a time from response timing.
 */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const parsed = parse(phc);
  if (parsed === undefined) return false;
  const computed = await derive(password, parsed.salt, parsed.parameters, parsed.hash.length);
  return timingSafeEqual(Buffer.from(computed), parsed.hash);
}

/** Whether a stored hash was made with weaker parameters than today's (upgrade it on login). */
export function needsRehash(phc: string): boolean {
  const parsed = parse(phc);
  if (parsed === undefined) return true;
  const { memoryKib, iterations, parallelism } = parsed.parameters;
  return (
    memoryKib < currentParameters.memoryKib ||
    iterations < currentParameters.iterations ||
    parallelism !== currentParameters.parallelism
  );
}

/**
 * A hash with today's parameters that no password matches (its digest is all zeros): verifying
 * against it costs exactly what a real verification costs, from the very first request.
 */
const { memoryKib: m, iterations: t, parallelism: p } = currentParameters;
const dummyHash = `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(new Uint8Array(saltBytes))}$${b64(new Uint8Array(hashBytes))}`;

/**
 * Spends the same time as verifying a real password, for logins of unknown emails: without it
 * "unknown email" answers ~60 ms sooner than "wrong password" and tells who has an account.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, dummyHash);
  return false;
}
