import { randomUUID } from 'node:crypto';
import {
  type AwsClientOptions,
  AwsError,
  encodeRfc3986,
  jsonAnswerOf,
  SignedAwsClient,
} from './aws-signed-request.js';

/**
 * EventBridge Scheduler's CreateSchedule, the one Scheduler call the functions make, without the
 * SDK's client (with SES's and the SDK core they pulled in, 215 of `workers/deliver-webhook`'s
 * 271 KiB: docs/performance.md). The protocol is the SDK's (@aws-sdk/client-scheduler 3.x):
 * REST-JSON, `POST /schedules/{Name}` with the other members as a JSON body in the order of the
 * SDK's schema, and a fresh ClientToken per call (the same on its retries) as the SDK fills in
 * that idempotency token; signed as `scheduler`. A refusal is named by its `x-amzn-errortype`
 * header (`ConflictException` for a name already taken). Throttling, 5xx and network failures are
 * retried (aws-signed-request.ts); the endpoint is AWS_ENDPOINT_URL_SCHEDULER or
 * AWS_ENDPOINT_URL when set.
 */

export interface CreateScheduleInput {
  Name: string;
  GroupName?: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  ActionAfterCompletion?: 'NONE' | 'DELETE';
  Target: {
    Arn: string;
    RoleArn: string;
    RetryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number };
    Input?: string;
  };
}

/** A refusal Scheduler answered, named as the SDK names it (`ValidationException`, …). */
export class SchedulerError extends AwsError {}

/** A schedule of that name exists in the group already. */
export class ConflictException extends SchedulerError {
  constructor(message: string, httpStatus: number) {
    super('ConflictException', message, httpStatus);
  }
}

const schedulerService = {
  title: 'Scheduler',
  signingName: 'scheduler',
  endpointVariables: ['AWS_ENDPOINT_URL_SCHEDULER', 'AWS_ENDPOINT_URL'],
  retryable: new Set(['ThrottlingException']),
};

export class SchedulerClient {
  private readonly transport: SignedAwsClient;

  constructor(options: AwsClientOptions = {}) {
    this.transport = new SignedAwsClient(schedulerService, options);
  }

  /** Throws ConflictException when the name is taken, SchedulerError for other refusals. */
  createSchedule(input: CreateScheduleInput): Promise<{ ScheduleArn?: string }> {
    const { Target: target, FlexibleTimeWindow: window } = input;
    const retry = target.RetryPolicy;
    // JSON.stringify leaves out undefined members, as the SDK's serializer does.
    const body = {
      ScheduleExpression: input.ScheduleExpression,
      Target: {
        Arn: target.Arn,
        RoleArn: target.RoleArn,
        RetryPolicy:
          retry === undefined
            ? undefined
            : {
                MaximumEventAgeInSeconds: retry.MaximumEventAgeInSeconds,
                MaximumRetryAttempts: retry.MaximumRetryAttempts,
              },
        Input: target.Input,
      },
      FlexibleTimeWindow: {
        Mode: window.Mode,
        MaximumWindowInMinutes: window.MaximumWindowInMinutes,
      },
      GroupName: input.GroupName,
      ScheduleExpressionTimezone: input.ScheduleExpressionTimezone,
      ClientToken: randomUUID(),
      ActionAfterCompletion: input.ActionAfterCompletion,
    };
    return this.transport.send(
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        what: 'CreateSchedule',
        path: `/schedules/${encodeRfc3986(input.Name)}`,
      },
      (response) =>
        jsonAnswerOf('CreateSchedule', response, (name, message, status) =>
          name === 'ConflictException'
            ? new ConflictException(message, status)
            : new SchedulerError(name, message, status),
        ) as { ScheduleArn?: string },
    );
  }
}
