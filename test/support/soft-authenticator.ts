import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A WebAuthn authenticator in software (ES256, "none" attestation, user verified), for the tests
 * that must sign what a browser would not: another origin, another relying party id, an old
 * counter. It answers as `navigator.credentials.create` / `.get` do, serialized as
 * `@simplewebauthn/browser` posts them.
 */

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** The CBOR (RFC 8949) of what an attestation holds: maps, byte and text strings, small ints. */
type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number) =>
    length < 24
      ? Buffer.from([(major << 5) | length])
      : length < 256
        ? Buffer.from([(major << 5) | 24, length])
        : Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([
    head(5, value.size),
    ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)]),
  ]);
}

/** Who signs, and where they claim to be: each can be set wrong on purpose. */
export interface Ceremony {
  origin: string;
  rpId: string;
}

const flags = { userPresent: 0x01, userVerified: 0x04, attestedData: 0x40 };

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private userHandle = '';
  counter = 0;

  constructor() {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
    }));
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The answer to registration options (`challenge`, `user.id`), as the browser posts it. */
  register(options: { challenge: string; user: { id: string } }, where: Ceremony) {
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, Cbor>([
      [1, 2], // EC2
      [3, -7], // ES256
      [-1, 1], // P-256
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]);
    const length = Buffer.from([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    const authData = Buffer.concat([
      this.authenticatorData(where.rpId, flags.attestedData),
      Buffer.alloc(16), // AAGUID: none
      length,
      this.credentialId,
      cbor(coseKey),
    ]);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return this.credential({
      clientDataJSON: this.clientData('webauthn.create', options.challenge, where.origin),
      attestationObject: b64url(attestationObject),
      transports: ['internal'],
    });
  }

  /** The answer to sign-in options (`challenge`), signed with the next counter. */
  signIn(options: { challenge: string }, where: Ceremony) {
    this.counter += 1;
    const authenticatorData = this.authenticatorData(where.rpId, 0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, where.origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
      this.privateKey,
    );
    return this.credential({
      clientDataJSON,
      authenticatorData: b64url(authenticatorData),
      signature: b64url(signature),
      userHandle: this.userHandle,
    });
  }

  /** A ceremony's `response` as the browser posts it, in the credential of this authenticator. */
  private credential<Response extends object>(response: Response) {
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response,
    };
  }

  private authenticatorData(rpId: string, extra: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([
      sha256(rpId),
      Buffer.from([flags.userPresent | flags.userVerified | extra]),
      counter,
    ]);
  }

  private clientData(type: string, challenge: string, origin: string): string {
    return b64url(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}
