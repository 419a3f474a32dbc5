import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Algorithm, hashRaw, type Version } from '@node-rs/argon2';

/**
 * Password hashing (docs/accounts.md, "Passwords"): Argon2id with OWASP's first-choice
 * parameters, stored as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) so the
 * parameters travel with each hash and can be raised later; `needsRehash` tells login to upgrade
 * an old hash while it holds the plain password.
 *
 * The hash is native (`@node-rs/argon2`, Rust's argon2 crate through N-API), run on libuv's
 * thread pool: 13–21 ms per hash on the 2-core dev machine where WebAssembly took 67–91 ms
 * (docs/performance.md). Each platform has its own binary: the host's locally and in tests, the
 * Lambda architecture's one placed beside each hashing function's bundle at synth time
 * (infra/native-binding.ts). There is no fallback: a binding that cannot load fails the module's
 * import, and so the function's cold start, instead of hashing slower.
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

/**
 * The binding's `Algorithm.Argon2id` and `Version.V0x13`: its typings declare them as const enums,
 * which isolated modules cannot read, so the values are written out (index.d.ts of the package).
 */
const argon2id = 2 as Algorithm;
const version19 = 1 as Version;

function derive(
  password: string,
  salt: Uint8Array,
  parameters: Argon2Parameters,
  length: number,
): Promise<Uint8Array> {
  return hashRaw(password.normalize('NFKC'), {
    algorithm: argon2id,
    version: version19,
    memoryCost: parameters.memoryKib,
    timeCost: parameters.iterations,
    parallelism: parameters.parallelism,
    outputLen: length,
    salt,
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

/**
 * Hashes the password with the salt and parameters of a stored hash and tells whether it is the
 * same password: one Argon2 computation that is both a verification and a hash to store — the
 * cost of `hashPassword`, whatever the answer. A stored hash that cannot be read gets a fresh
 * hash and no match.
 */
export async function hashAlongside(
  password: string,
  phc: string,
): Promise<{ hash: string; matches: boolean }> {
  const parsed = parse(phc);
  if (parsed === undefined || parsed.salt.length < saltBytes) {
    return { hash: await hashPassword(password), matches: false };
  }
  const computed = Buffer.from(
    await derive(password, parsed.salt, parsed.parameters, parsed.hash.length),
  );
  const { memoryKib, iterations, parallelism } = parsed.parameters;
  return {
    hash: `$argon2id$v=19$m=${memoryKib},t=${iterations},p=${parallelism}$${b64(parsed.salt)}$${b64(computed)}`,
    matches: timingSafeEqual(computed, parsed.hash),
  };
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
