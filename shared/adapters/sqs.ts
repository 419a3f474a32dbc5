import { SQSClient } from '@aws-sdk/client-sqs';
import {
  type ClientSettings,
  clientSettings,
  signingWithOneSigner,
} from './aws-client-settings.js';
import { lazily } from './lazily.js';

/**
 * An SQS client as the service builds it (aws-client-settings.ts). A call goes to its queue URL's
 * host, as the SDK sends it (so the queue URLs a stand-in hands out point the functions at it),
 * and the MD5 SQS answers for each message body is checked by the SDK.
 */
export const sqsClient = (settings?: ClientSettings): SQSClient =>
  signingWithOneSigner(new SQSClient(clientSettings(settings)));

/** The SQS client of this process, which its queues share: built on first use. */
export const sqs = /* @__PURE__ */ lazily(() => sqsClient());
