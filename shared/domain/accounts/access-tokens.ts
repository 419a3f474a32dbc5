import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomUUID,
  sign,
} from 'node:crypto';
import { calculateJwkThumbprint, errors, type JWK, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';
import { epochSeconds } from '../clock.js';
import { ServiceError } from '../errors.js';
import { refreshTokenSeconds } from './refresh-tokens.js';

/** Access-token lifetime (docs/accounts.md, "Access tokens and keys"): 15 minutes. */
export const accessTokenSeconds = 15 * 60;

/** The answer to a valid access token whose session was revoked (logout, password change). */
export const sessionEnded = () =>
  new ServiceError('invalid_token', 'The session of this access token has ended');

/** A public key that checks access tokens: what the JWKS publishes, and all a verifier holds. */
export interface VerificationKey {
  kid: string;
  publicKey: KeyObject;
  publicJwk: JWK;
}

/** A key that signs access tokens: only the functions that issue tokens hold one. */
export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

/** What a valid access token says about its bearer. */
export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/**
 * What makes an access token the same text when it is issued again: Ed25519 signatures are
 * deterministic, so the same claims, issue time and key give the same token (a refresh repeated
 * within its grace gets the pair it was first given, computed again rather than stored).
 */
export interface AccessTokenStamp {
  /** Its `jti`. */
  id: string;
  /** Epoch ms of its first issue. */
  issuedAt: number;
  /** The key that signed it first, used again while it is still held. @default the signer */
  kid?: string;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The Ed25519 key of one secret seed: SHA-256(seed) is the private key, so the same secret yields
 * the same key on every cold start and every function, with nothing but the seed to store.
 * The kid is the key's RFC 7638 thumbprint.
 */
export async function signingKeyFromSeed(seed: string): Promise<SigningKey> {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ed25519Pkcs8Prefix, createHash('sha256').update(seed).digest()]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const exported = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(exported);
  return {
    kid,
    privateKey,
    publicKey,
    publicJwk: {
      kty: exported.kty,
      crv: exported.crv,
      x: exported.x,
      kid,
      alg: 'EdDSA',
      use: 'sig',
    },
  };
}

/**
 * The verification key a published JWK describes, or undefined for anything but an Ed25519 public
 * key whose kid is its own RFC 7638 thumbprint: a verifier trusts no key it cannot recompute.
 */
export async function verificationKeyFromJwk(jwk: JWK): Promise<VerificationKey | undefined> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || 'd' in jwk) {
    return undefined;
  }
  const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
  const kid = await calculateJwkThumbprint(publicJwk);
  if (jwk.kid !== kid) return undefined;
  return {
    kid,
    publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }),
    publicJwk: { ...publicJwk, kid, alg: 'EdDSA', use: 'sig' },
  };
}

/**
 * Verifies EdDSA access tokens with public keys only: what every function that checks a Bearer
 * token holds (the keys its issuers published), and the JWKS document.
 */
export class AccessTokenVerifier {
  private readonly byKid: Map<string, VerificationKey>;

  constructor(
    private readonly published: readonly VerificationKey[],
    protected readonly issuer: string,
    protected readonly audience: string,
    protected readonly clock: Clock,
  ) {
    this.byKid = new Map(published.map((key) => [key.kid, key]));
  }

  /** The claims of a valid token; anything else (bad signature, expired, wrong audience) throws invalid_token. */
  async verify(token: string): Promise<AccessClaims> {
    try {
      return await this.check(token, 0);
    } catch (error) {
      throw new ServiceError('invalid_token', 'The access token is invalid or expired', [], {
        cause: error,
      });
    }
  }

  /**
   * The claims of a token we signed, even if it expired (up to the refresh lifetime ago): logout
   * with a stale token still ends its session. Undefined for anything we did not sign.
   */
  async verifyForLogout(token: string): Promise<AccessClaims | undefined> {
    try {
      return await this.check(token, refreshTokenSeconds);
    } catch {
      return undefined;
    }
  }

  private async check(token: string, clockTolerance: number): Promise<AccessClaims> {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid === undefined ? undefined : this.byKid.get(header.kid);
        if (key === undefined) throw new errors.JWKSNoMatchingKey();
        return key.publicKey;
      },
      {
        algorithms: ['EdDSA'],
        issuer: this.issuer,
        audience: this.audience,
        requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
        currentDate: new Date(this.clock.now()),
        clockTolerance,
      },
    );
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') {
      throw new Error('sub and sid must be strings');
    }
    return { userId: payload.sub, sessionId: payload.sid };
  }

  /** The JSON Web Key Set of every active public key. */
  jwks(): { keys: JWK[] } {
    return { keys: this.published.map((key) => key.publicJwk) };
  }
}

/**
 * Issues EdDSA access tokens, and verifies them like any verifier. The first of `keys` signs;
 * every key, `upcoming` ones included, verifies and is published. A rotation publishes the new key
 * as upcoming first (verifiers and JWKS caches catch up), then makes it the signer while the old
 * one stays published until the last token it signed has expired — old and new are always
 * published together.
 */
export class AccessTokens extends AccessTokenVerifier {
  private readonly signers: Map<string, SigningKey>;

  constructor(
    private readonly keys: SigningKey[],
    issuer: string,
    audience: string,
    clock: Clock,
    upcoming: SigningKey[] = [],
  ) {
    if (keys.length === 0) throw new Error('AccessTokens needs at least one signing key');
    super([...upcoming, ...keys], issuer, audience, clock);
    this.signers = new Map([...upcoming, ...keys].map((key) => [key.kid, key]));
  }

  /**
   * A compact JWS (RFC 7515) of the claims, signed with Ed25519 by node:crypto directly: jose's
   * SignJWT goes through WebCrypto and cost 3× as much CPU (217 against 66 µs), on every login
   * and refresh. Verification stays jose's, which holds what it accepts to RFC 8725. With a
   * `stamp`, the token issued earlier with that stamp, again.
   */
  async issue(claims: AccessClaims, stamp?: AccessTokenStamp): Promise<string> {
    const signer =
      (stamp?.kid === undefined ? undefined : this.signers.get(stamp.kid)) ?? this.keys[0]!;
    const issuedAt = epochSeconds(stamp?.issuedAt ?? this.clock.now());
    const header = base64url({ alg: 'EdDSA', typ: 'JWT', kid: signer.kid });
    const payload = base64url({
      sid: claims.sessionId,
      iss: this.issuer,
      aud: this.audience,
      sub: claims.userId,
      jti: stamp?.id ?? randomUUID(),
      iat: issuedAt,
      exp: issuedAt + accessTokenSeconds,
    });
    const signingInput = `${header}.${payload}`;
    const signature = sign(null, Buffer.from(signingInput), signer.privateKey);
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /** The kid of the key that signs new tokens. */
  get signerKid(): string {
    return this.keys[0]!.kid;
  }
}
