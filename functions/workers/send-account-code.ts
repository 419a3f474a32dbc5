import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { decodeAccountCodeRequest } from '../../shared/adapters/account-code-message.js';
import { otpOperationDeps } from '../../shared/adapters/otp-operations.js';
import { mailer } from '../../shared/adapters/ses-mailer.js';
import { dynamoSignupNotices } from '../../shared/adapters/signup-notices.js';
import { systemClock } from '../../shared/domain/clock.js';
import { ServiceError } from '../../shared/domain/errors.js';
import { type CodeRequestDeps, fulfilCodeRequest } from '../../shared/domain/otp/code-requests.js';
import { log } from '../../shared/log.js';

async function workDeps(): Promise<CodeRequestDeps> {
  const operations = await otpOperationDeps();
  return {
    ...operations,
    signupNotices: dynamoSignupNotices,
    mailer: mailer(),
    clock: systemClock,
  };
}

/**
 * Issues and sends the codes (and signup notices) that signup, forgotPassword, resendEmailOtp and
 * resendMobileOtp queued, one per SQS record (docs/accounts.md, "Signup without enumeration",
 * "Forgot password"). Records that failed for a reason that may pass (storage, SES, SNS) are
 * reported in `batchItemFailures`, so SQS redelivers only those (ReportBatchItemFailures); the
 * visibility timeout outlasts the 60 s code cooldown, so the redelivery issues and sends a fresh
 * code. Logs name the kind of work, never the target.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = await workDeps();
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      const work = decodeAccountCodeRequest(record.body);
      if (work === undefined) {
        log.error('dropped an account-code message this service did not write', {
          messageId: record.messageId,
        });
        return undefined;
      }
      try {
        await fulfilCodeRequest(deps, work);
        return undefined;
      } catch (error) {
        if (error instanceof ServiceError) {
          // A refusal a retry would meet again (a number SNS will not text): drop it.
          log.warn('account code not sent: refused', {
            kind: work.kind,
            messageId: record.messageId,
            code: error.code,
          });
          return undefined;
        }
        log.error('account code failed; it will be retried', {
          kind: work.kind,
          messageId: record.messageId,
          error,
        });
        return record.messageId;
      }
    }),
  );
  return {
    batchItemFailures: failures
      .filter((id): id is string => id !== undefined)
      .map((itemIdentifier) => ({ itemIdentifier })),
  };
};
