import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { surfaceSizes } from '../deployment-sizes.js';

/**
 * The timeouts the stack gives each surface's functions, in seconds: a local invocation's
 * remaining time counts down from them as on AWS.
 */
export const functionTimeoutSeconds = {
  api: surfaceSizes.api.timeoutSeconds,
  queue: surfaceSizes.queue.timeoutSeconds,
  schedule: surfaceSizes.schedule.timeoutSeconds,
} as const;

/**
 * The Lambda context of one local invocation of `functionName`, as the local runtime and its
 * queue stand-ins hand it to the deployed handler modules. Its remaining time counts down from
 * `timeoutSeconds`, so the middy stack answers its 500 envelope before that deadline, as it does
 * before Lambda's own timeout on AWS (a fixed 30 s left a hung call unanswered for 30 s).
 */
export function lambdaContext(
  functionName: string,
  memoryMb: number,
  timeoutSeconds: number,
  requestId: string = randomUUID(),
): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
