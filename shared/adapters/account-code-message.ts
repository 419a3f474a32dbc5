import * as v from 'valibot';
import {
  type AccountCodeRequest,
  accountCodeRequestKinds,
  securityNotices,
} from '../domain/accounts/ports.js';
import { messageCodec } from './message-codec.js';

/** Longer than any email (254) or E.164 number the schemas accept. */
const target = v.pipe(v.string(), v.minLength(1), v.maxLength(320));
const userId = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
/** A counting address (an IPv4 address, or an IPv6 one or its /64). */
const source = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

/** The account-code queue's message body: what to do and for whom, never a code. */
const AccountCodeMessage = v.variant('kind', [
  v.object({
    kind: v.picklist(accountCodeRequestKinds),
    target,
    subject: v.optional(userId),
    // Messages queued before sources were counted name none: they count as one source.
    source: v.optional(source, 'unqueued'),
  }),
  v.object({
    kind: v.literal('notice'),
    notice: v.picklist(securityNotices),
    target,
    detail: v.optional(target),
  }),
]);

export const accountCodeMessageCodec = messageCodec(AccountCodeMessage, {
  toBody: (work: AccountCodeRequest) => work,
  fromBody: (body): AccountCodeRequest => body,
});
