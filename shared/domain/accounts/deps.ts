import type { Clock } from '../clock.js';
import type { AccessTokens, AccessTokenVerifier } from './access-tokens.js';
import type { SecondFactorStore } from './mfa-challenge.js';
import type {
  AccountCodeQueue,
  AccountCodes,
  LoginThrottle,
  SessionRepository,
  UserRepository,
} from './ports.js';

/** The signing material of access and refresh tokens. */
export interface TokenKeys {
  accessTokens: AccessTokens;
  /** Keys the derivation of refresh-token successors. */
  refreshSuccessorKey: Uint8Array;
}

/**
 * What every account use-case works with; built once per cold start, on first use
 * (`accountDependencies()` in shared/adapters/accounts-wiring.ts).
 */
export interface AccountDeps {
  users: UserRepository;
  sessions: SessionRepository;
  throttle: LoginThrottle;
  secondFactors: SecondFactorStore;
  /**
   * The signing keys, loaded on first use: only the operations that issue tokens (login, refresh,
   * the sign-ins by code) can read the private seeds.
   */
  tokenKeys: () => Promise<TokenKeys>;
  /** The public keys the issuers published, loaded on first use: what checks a token. */
  tokenVerifier: () => Promise<AccessTokenVerifier>;
  clock: Clock;
}

/** The use-cases that hand work to the account-code worker (codes and notices, sent off-path). */
export interface AccountCodeDeps extends AccountDeps {
  codeQueue: AccountCodeQueue;
}

/** The use-cases that also consume an emailed code (activation, password reset). */
export interface AccountCheckDeps extends AccountCodeDeps {
  codes: Pick<AccountCodes, 'verifyThen'>;
}
