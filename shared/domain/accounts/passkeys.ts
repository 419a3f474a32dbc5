import { ServiceError } from '../errors.js';
import type { AccountCodeDeps, AccountDeps } from './deps.js';
import { accountOf } from './user.js';

/**
 * Passkeys (WebAuthn, docs/accounts.md, "Passkeys"): a signed-in user adds one (with the current
 * password), and signs in with it without an email or a password — discoverable credentials,
 * user verification required. Phishing-resistant by construction: the browser signs the origin
 * it is on, and the service accepts only its own relying party id and origins.
 *
 * This module holds what is kept and the list; the ceremonies, which need the WebAuthn library,
 * are passkey-ceremonies.ts (so the functions that list or remove do not load it).
 */

/** The relying party: the id passkeys are bound to, its name, and the origins that may use it. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/** A passkey as stored: what verifies its signatures, and what the list shows of it. */
export interface StoredPasskey {
  /** The credential id, base64url. */
  id: string;
  userId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  transports: string[];
  /** `singleDevice` or `multiDevice` (synced). */
  deviceType: string;
  backedUp: boolean;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms; undefined until it signs in once. */
  lastUsedAt?: number;
}

/** A ceremony's challenge, single use: for whom (registration) and until when. */
export interface PasskeyChallenge {
  kind: 'registration' | 'authentication';
  /** The user adding a passkey (registration only). */
  userId?: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * Storage of passkeys and ceremonies; each method one read or one atomic write
 * (shared/adapters/dynamo-passkeys.ts).
 */
export interface PasskeyStore {
  putChallenge(challenge: string, state: PasskeyChallenge): Promise<void>;
  /** Deletes the challenge and answers it, if it was there: a challenge is used once. */
  takeChallenge(challenge: string): Promise<PasskeyChallenge | undefined>;
  /** Stores a new passkey; false when its credential id is stored already. */
  add(passkey: StoredPasskey): Promise<boolean>;
  byId(credentialId: string): Promise<StoredPasskey | undefined>;
  list(userId: string): Promise<StoredPasskey[]>;
  /**
   * Records a sign-in: the new counter and backup state, only if the stored counter is still
   * `previousCounter` (two sign-ins racing with one signature cannot both pass).
   */
  recordUse(
    passkey: StoredPasskey,
    use: { counter: number; backedUp: boolean; at: number },
  ): Promise<boolean>;
  /** Removes a passkey of the user; false when the user has none with that id. */
  remove(userId: string, credentialId: string): Promise<boolean>;
}

export interface PasskeyDeps extends AccountDeps {
  passkeys: PasskeyStore;
}

/** Seconds a ceremony's challenge is good for (the browser's prompt, then the answer). */
export const challengeSeconds = 300;
/** The most passkeys one account holds. */
export const maxPasskeysPerUser = 10;

/** The signed-in user's passkeys, oldest first. */
export async function listPasskeys(deps: PasskeyDeps, userId: string): Promise<StoredPasskey[]> {
  return (await deps.passkeys.list(userId)).sort((a, b) => a.createdAt - b.createdAt);
}

/** Removes one of the signed-in user's passkeys (404 for anyone else's); the owner is told. */
export async function removePasskey(
  deps: PasskeyDeps & AccountCodeDeps,
  userId: string,
  credentialId: string,
): Promise<void> {
  const user = await accountOf(deps.users, userId);
  if (!(await deps.passkeys.remove(user.id, credentialId))) {
    throw new ServiceError('not_found', 'No passkey of this account has that id');
  }
  await deps.codeQueue.request({ kind: 'notice', notice: 'passkey_removed', target: user.email });
}
