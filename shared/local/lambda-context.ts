import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * The Lambda context of one local invocation of `functionName`, as the local runtime and its
 * queue stand-ins hand it to the deployed handler modules.
 */
export function lambdaContext(
  functionName: string,
  memoryMb: number,
  requestId: string = randomUUID(),
): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
