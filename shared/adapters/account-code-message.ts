import { type AccountCodeRequest, accountCodeRequestKinds } from '../domain/accounts/ports.js';

/** Longer than any email (254) or E.164 number the schemas accept. */
const maxTargetLength = 320;

/** The account-code queue's message body: what to do and for whom, never a code. */
export const encodeAccountCodeRequest = (work: AccountCodeRequest): string =>
  JSON.stringify({ kind: work.kind, target: work.target });

/** Undefined for a body this service did not write (it is dropped, not retried forever). */
export function decodeAccountCodeRequest(body: string): AccountCodeRequest | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { kind, target } = parsed as { kind?: unknown; target?: unknown };
    const known = accountCodeRequestKinds.find((candidate) => candidate === kind);
    if (known === undefined) return undefined;
    if (typeof target !== 'string' || target === '' || target.length > maxTargetLength) {
      return undefined;
    }
    return { kind: known, target };
  } catch {
    return undefined;
  }
}
