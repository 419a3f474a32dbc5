import { accountCodeMessageCodec } from '../../shared/adapters/account-code-message.js';
import { codeRequestDependencies } from '../../shared/adapters/otp-sends-wiring.js';
import { isDefinitive, Refusal } from '../../shared/domain/errors.js';
import { fulfilCodeRequest } from '../../shared/domain/otp/code-requests.js';
import { queueWorker } from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';

/**
 * Issues and sends the codes (and signup notices) that signup, forgotPassword, resendEmailOtp and
 * resendMobileOtp queued, one per SQS record (docs/accounts.md, "Signup without enumeration",
 * "Forgot password"). A record that failed for a reason that may pass (storage, SES, SNS) is
 * retried alone; the visibility timeout outlasts the 60 s code cooldown, so the redelivery issues
 * and sends a fresh code. Logs name the kind of work, never the target.
 */
export const handler = queueWorker({
  codec: accountCodeMessageCodec,
  describe: (work) => ({ kind: work.kind }),
  handle: async (work) => {
    try {
      await fulfilCodeRequest(codeRequestDependencies(), work);
      log.info('account code request fulfilled', { kind: work.kind });
    } catch (error) {
      // A refusal a retry would meet again (a number SNS will not text): drop it.
      if (!isDefinitive(error)) throw error;
      const why = error instanceof Refusal ? { reason: error.reason } : { code: error.code };
      log.warn('account code not sent: refused', { kind: work.kind, ...why });
    }
    return 'done';
  },
});
