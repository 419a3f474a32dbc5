import * as v from 'valibot';
import {
  type AccountCodeRequest,
  accountCodeRequestKinds,
  securityNotices,
} from '../domain/accounts/ports.js';

/** Longer than any email (254) or E.164 number the schemas accept. */
const target = v.pipe(v.string(), v.minLength(1), v.maxLength(320));
const userId = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

/** The account-code queue's message body: what to do and for whom, never a code. */
const AccountCodeMessage = v.variant('kind', [
  v.object({
    kind: v.picklist(accountCodeRequestKinds),
    target,
    subject: v.optional(userId),
  }),
  v.object({
    kind: v.literal('notice'),
    notice: v.picklist(securityNotices),
    target,
    detail: v.optional(target),
  }),
]);

export const encodeAccountCodeRequest = (work: AccountCodeRequest): string => JSON.stringify(work);

/** Undefined for a body this service did not write (it is dropped, not retried forever). */
export function decodeAccountCodeRequest(body: string): AccountCodeRequest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = v.safeParse(AccountCodeMessage, parsed);
  return result.success ? result.output : undefined;
}
