import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { AccountCodeDeps } from './deps.js';
import { checkCurrentPassword } from './login.js';
import {
  challengeSeconds,
  maxPasskeysPerUser,
  type PasskeyChallenge,
  type PasskeyDeps,
  type RelyingParty,
  type StoredPasskey,
} from './passkeys.js';
import type { SignInClient } from './ports.js';
import { type SignedIn, startSession } from './sessions.js';
import { accountOf } from './user.js';

/**
 * The passkey ceremonies (docs/accounts.md, "Passkeys") through `@simplewebauthn/server`: adding
 * one (options, then the browser's answer) and signing in with one (options, then the answer).
 */

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The challenge a ceremony's answer signed, from its client data (undefined if unreadable). */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The challenge of `response`, taken (used up) if it is a live one of `kind`. */
async function takenChallenge(
  deps: PasskeyDeps,
  clientDataJSON: string,
  kind: PasskeyChallenge['kind'],
): Promise<{ challenge: string; state: PasskeyChallenge } | undefined> {
  const challenge = challengeOf(clientDataJSON);
  if (challenge === undefined) return undefined;
  const state = await deps.passkeys.takeChallenge(challenge);
  if (state === undefined || state.kind !== kind || state.expiresAt <= deps.clock.now()) {
    return undefined;
  }
  return { challenge, state };
}

const refusedRegistration = (message: string) =>
  new ServiceError('invalid_request', message, [{ field: 'credential', message }]);

/**
 * The options of a new passkey's ceremony (`navigator.credentials.create`), after the current
 * password: a stolen access token must not add the attacker's passkey, which would sign the
 * attacker in for good. The user's passkeys are excluded (no second one on one authenticator).
 */
export async function registrationOptions(
  deps: PasskeyDeps,
  caller: { userId: string; source: string },
  currentPassword: string,
  party: RelyingParty,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = await accountOf(deps.users, caller.userId);
  await checkCurrentPassword(deps, user, currentPassword, caller.source);
  const existing = await deps.passkeys.list(user.id);
  if (existing.length >= maxPasskeysPerUser) {
    throw new ServiceError(
      'conflict',
      `An account holds at most ${maxPasskeysPerUser} passkeys; remove one first`,
    );
  }
  const options = await generateRegistrationOptions({
    rpName: party.name,
    rpID: party.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    timeout: challengeSeconds * 1000,
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.id,
      transports: passkey.transports,
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await deps.passkeys.putChallenge(options.challenge, {
    kind: 'registration',
    userId: user.id,
    expiresAt: deps.clock.now() + challengeSeconds * 1000,
  });
  return options;
}

/**
 * Verifies the browser's answer to `registrationOptions` and stores the passkey: the challenge
 * must be a live one issued to this user (used once), the origin one of the party's, the RP id
 * the party's, the user verified. The owner is told by email.
 */
export async function addPasskey(
  deps: PasskeyDeps & AccountCodeDeps,
  caller: { userId: string },
  response: RegistrationResponseJSON,
  party: RelyingParty,
): Promise<StoredPasskey> {
  const user = await accountOf(deps.users, caller.userId);
  const taken = await takenChallenge(deps, response.response.clientDataJSON, 'registration');
  if (taken === undefined || taken.state.userId !== user.id) {
    throw refusedRegistration('is not an answer to a live passkey challenge of this account');
  }
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: taken.challenge,
    expectedOrigin: party.origins,
    expectedRPID: party.id,
    requireUserVerification: true,
  }).catch((error: unknown) => {
    throw refusedRegistration(error instanceof Error ? error.message : 'could not be verified');
  });
  if (!verification.verified) throw refusedRegistration('could not be verified');
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const passkey: StoredPasskey = {
    id: credential.id,
    userId: user.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? [],
    deviceType: credentialDeviceType,
    backedUp: credentialBackedUp,
    createdAt: deps.clock.now(),
  };
  if (!(await deps.passkeys.add(passkey))) {
    throw new ServiceError('conflict', 'This passkey is registered already');
  }
  await deps.codeQueue.request({ kind: 'notice', notice: 'passkey_added', target: user.email });
  return passkey;
}

/**
 * The options of a passkey sign-in (`navigator.credentials.get`): no email asked, no credential
 * listed — the authenticator offers the passkeys it holds for the party.
 */
export async function authenticationOptions(
  deps: PasskeyDeps,
  party: RelyingParty,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: party.id,
    userVerification: 'required',
    timeout: challengeSeconds * 1000,
  });
  await deps.passkeys.putChallenge(options.challenge, {
    kind: 'authentication',
    expiresAt: deps.clock.now() + challengeSeconds * 1000,
  });
  return options;
}

const refusedSignIn = () =>
  new ServiceError('invalid_credentials', 'The passkey could not be verified; try again');

/**
 * Signs in with a passkey: a live sign-in challenge (used once), a stored credential, its
 * signature over this party's origin and RP id with the user verified, a counter that moved on
 * (a cloned authenticator's replays do not). A passkey is possession and user verification at
 * once, so no MFA ticket follows. Every refusal is the same 401.
 */
export async function passkeySignIn(
  deps: PasskeyDeps,
  response: AuthenticationResponseJSON,
  client: SignInClient,
  party: RelyingParty,
): Promise<SignedIn> {
  try {
    const signedIn = await verifiedSignIn(deps, response, client, party);
    metrics.count('PasskeySignIns', { Outcome: 'ok' });
    return signedIn;
  } catch (error) {
    metrics.count('PasskeySignIns', { Outcome: 'refused' });
    throw error;
  }
}

async function verifiedSignIn(
  deps: PasskeyDeps,
  response: AuthenticationResponseJSON,
  client: SignInClient,
  party: RelyingParty,
): Promise<SignedIn> {
  const taken = await takenChallenge(deps, response.response.clientDataJSON, 'authentication');
  if (taken === undefined) throw refusedSignIn();
  const passkey = await deps.passkeys.byId(response.id);
  if (passkey === undefined) throw refusedSignIn();
  // A discoverable credential names its user: it must be the one the passkey was added for.
  const { userHandle } = response.response;
  if (
    userHandle !== undefined &&
    userHandle !== base64url(new TextEncoder().encode(passkey.userId))
  ) {
    throw refusedSignIn();
  }
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: taken.challenge,
    expectedOrigin: party.origins,
    expectedRPID: party.id,
    credential: {
      id: passkey.id,
      publicKey: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
    },
    requireUserVerification: true,
  }).catch(() => {
    throw refusedSignIn();
  });
  if (!verification.verified) throw refusedSignIn();
  const { newCounter, credentialBackedUp } = verification.authenticationInfo;
  const now = deps.clock.now();
  const recorded = await deps.passkeys.recordUse(passkey, {
    counter: newCounter,
    backedUp: credentialBackedUp,
    at: now,
  });
  if (!recorded) throw refusedSignIn();
  const user = await deps.users.get(passkey.userId);
  if (user === undefined || !user.emailVerified) throw refusedSignIn();
  return startSession(deps, user, client, {});
}
