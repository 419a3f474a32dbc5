import { randomBytes } from 'node:crypto';

/** An account as the domain sees it. Emails are lower-cased, phones E.164. */
export interface User {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  /** One of the documented values (docs/accounts.md), or null when not given. */
  gender: string | null;
  onlineStatus: boolean;
  emailVerified: boolean;
  phoneVerified: boolean;
  /** PHC string (password-hashing.ts); never leaves the service. */
  passwordHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** Consecutive failed password checks since the last success. */
  failedLogins: number;
  /** Epoch ms until which password checks are refused (0 when not locked). */
  lockedUntil: number;
}

/** The `user` object of API responses (contract.md): no hash, no counters. */
export interface PublicUser {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  gender: string | null;
  online_status: boolean;
  email_verified: boolean;
  phone_verified: boolean;
  created_at: string;
}

export const publicUser = (user: User): PublicUser => ({
  id: user.id,
  name: user.name,
  email: user.email,
  phone: user.phone,
  gender: user.gender,
  online_status: user.onlineStatus,
  email_verified: user.emailVerified,
  phone_verified: user.phoneVerified,
  created_at: user.createdAt,
});

/** `prefix_` + 128 random bits, base64url: unguessable, and safe inside keys and tokens. */
export const newId = (prefix: 'usr' | 'ses'): string =>
  `${prefix}_${randomBytes(16).toString('base64url')}`;
