import type { Clock } from '../clock.js';
import type { AccessTokens } from './access-tokens.js';
import type { LoginThrottle, SessionRepository, UserRepository } from './ports.js';

/** The signing material of access and refresh tokens. */
export interface TokenKeys {
  accessTokens: AccessTokens;
  /** Keys the derivation of refresh-token successors. */
  refreshSuccessorKey: Uint8Array;
}

/** Everything the account use-cases work with; built once per cold start (adapters/accounts.ts). */
export interface AccountDeps {
  users: UserRepository;
  sessions: SessionRepository;
  throttle: LoginThrottle;
  /**
   * Loaded on first use: only the operations that issue or check tokens have the signing secret
   * (signup, forgotPassword and the OTP sends do not, by least privilege).
   */
  tokenKeys: () => Promise<TokenKeys>;
  clock: Clock;
}
