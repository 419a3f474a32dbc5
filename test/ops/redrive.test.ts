import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queueOutputNames, stackNameOf } from '../../infra/stack-outputs.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const account = '123456789012';
const arnOf = (name: string) => `arn:aws:sqs:eu-west-1:${account}:${name}`;

/** One call the command made, as the stand-in read it. */
interface Call {
  service: 'cloudformation' | 'sqs';
  action: string;
  input: Record<string, unknown>;
}

/**
 * A recording stand-in for CloudFormation (query protocol, XML answers) and SQS (JSON protocol),
 * reached through the SDK's endpoint override: the stage's outputs, a dead-letter queue holding
 * `waiting` messages, and a move task that reports `statuses` one poll after another.
 */
class AwsStandIn {
  readonly calls: Call[] = [];
  waiting = 3;
  statuses: Record<string, unknown>[] = [];
  outputs: Record<string, string> = {};
  private server: Server | undefined;
  private origin = '';

  async start(): Promise<string> {
    this.server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const target = request.headers['x-amz-target'];
      if (typeof target === 'string') {
        const action = target.replace('AmazonSQS.', '');
        const input = JSON.parse(body) as Record<string, unknown>;
        this.calls.push({ service: 'sqs', action, input });
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(this.sqs(action, input)));
        return;
      }
      const form = new URLSearchParams(body);
      this.calls.push({
        service: 'cloudformation',
        action: form.get('Action') ?? '',
        input: Object.fromEntries(form),
      });
      response.writeHead(200, { 'content-type': 'text/xml' });
      response.end(this.describeStacks(form.get('StackName') ?? ''));
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.origin;
  }

  close(): Promise<void> {
    return new Promise((closed) => this.server?.close(() => closed()) ?? closed());
  }

  private sqs(action: string, input: Record<string, unknown>): unknown {
    switch (action) {
      case 'GetQueueUrl':
        // A queue URL names its endpoint (the SDK sends to it): here, this stand-in.
        return { QueueUrl: `${this.origin}/${account}/${input.QueueName}` };
      case 'GetQueueAttributes':
        return { Attributes: { ApproximateNumberOfMessages: String(this.waiting) } };
      case 'StartMessageMoveTask':
        return { TaskHandle: 'task-handle-1' };
      case 'ListMessageMoveTasks':
        return { Results: [this.statuses.shift() ?? { Status: 'COMPLETED' }] };
      default:
        return {};
    }
  }

  private describeStacks(stackName: string): string {
    const outputs = Object.entries(this.outputs)
      .map(
        ([key, value]) =>
          `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
      )
      .join('');
    return `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackId>arn:aws:cloudformation:eu-west-1:${account}:stack/${stackName}/1</StackId><CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${outputs}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeStacksResponse>`;
  }
}

const aws = new AwsStandIn();
let endpoint: string;

/** Runs `npm run redrive -- …args` as an operator would, every AWS call going to the stand-in. */
async function redrive(...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'bin/redrive.ts', ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          AWS_ENDPOINT_URL: endpoint,
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'operator',
          AWS_SECRET_ACCESS_KEY: 'operator',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          REDRIVE_POLL_MS: '10',
        },
      },
    );
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  endpoint = await aws.start();
});
afterAll(() => aws.close());
beforeEach(() => {
  aws.calls.length = 0;
  aws.waiting = 3;
  aws.statuses = [];
  aws.outputs = {};
  for (const queue of ['delivery', 'inbound', 'account-code']) {
    const names = queueOutputNames(queue);
    aws.outputs[names.queueArn] = arnOf(`${queue}-queue`);
    aws.outputs[names.deadLetterQueueArn] = arnOf(`${queue}-dlq`);
  }
});

describe('npm run redrive', () => {
  it('moves a dead-letter queue back to its queue with a message move task, and follows it with --wait', async () => {
    aws.statuses = [
      {
        Status: 'RUNNING',
        ApproximateNumberOfMessagesMoved: 1,
        ApproximateNumberOfMessagesToMove: 3,
      },
      {
        Status: 'COMPLETED',
        ApproximateNumberOfMessagesMoved: 3,
        ApproximateNumberOfMessagesToMove: 3,
      },
    ];

    const result = await redrive('account-code', '--stage', 'production', '--rate', '20', '--wait');

    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(aws.calls.map((call) => `${call.service} ${call.action}`)).toEqual([
      'cloudformation DescribeStacks',
      'sqs GetQueueUrl',
      'sqs GetQueueAttributes',
      'sqs StartMessageMoveTask',
      'sqs ListMessageMoveTasks',
      'sqs ListMessageMoveTasks',
    ]);
    expect(aws.calls[0]!.input.StackName).toBe(stackNameOf('production', 'data'));
    expect(aws.calls[1]!.input).toEqual({
      QueueName: 'account-code-dlq',
      QueueOwnerAWSAccountId: account,
    });
    expect(aws.calls[3]!.input).toEqual({
      SourceArn: arnOf('account-code-dlq'),
      DestinationArn: arnOf('account-code-queue'),
      MaxNumberOfMessagesPerSecond: 20,
    });
    expect(aws.calls[4]!.input).toEqual({ SourceArn: arnOf('account-code-dlq'), MaxResults: 1 });
    expect(result.stdout).toContain('task-handle-1');
    expect(result.stdout).toContain('Done: 3 of 3 moved.');
  });

  it('starts the task and returns at once without --wait, at SQS’s own pace without --rate', async () => {
    const result = await redrive('delivery');
    expect(result.status).toBe(0);
    expect(aws.calls[0]!.input.StackName).toBe(stackNameOf('test', 'data'));
    expect(aws.calls.find((call) => call.action === 'StartMessageMoveTask')!.input).toEqual({
      SourceArn: arnOf('delivery-dlq'),
      DestinationArn: arnOf('delivery-queue'),
    });
    expect(aws.calls.filter((call) => call.action === 'ListMessageMoveTasks')).toEqual([]);
  });

  it('starts nothing when the dead-letter queue is empty', async () => {
    aws.waiting = 0;
    const result = await redrive('inbound', '--wait');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Nothing to move');
    expect(aws.calls.map((call) => call.action)).not.toContain('StartMessageMoveTask');
  });

  it('fails, saying why, when the task fails', async () => {
    aws.statuses = [
      {
        Status: 'FAILED',
        ApproximateNumberOfMessagesMoved: 1,
        ApproximateNumberOfMessagesToMove: 3,
        FailureReason: 'AccessDenied',
      },
    ];
    const result = await redrive('delivery', '--wait');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('FAILED after 1 of 3: AccessDenied');
  });

  it('refuses an unknown queue or a bad rate before calling AWS', async () => {
    for (const args of [['mail'], [], ['delivery', '--rate', '0'], ['delivery', 'inbound']]) {
      const result = await redrive(...args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain('usage: npm run redrive --');
    }
    expect(aws.calls).toEqual([]);
  });

  it('names the missing outputs of a stage deployed before them', async () => {
    aws.outputs = {};
    const result = await redrive('delivery');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no outputs DeliveryDeadLetterQueueArn and DeliveryQueueArn');
    expect(aws.calls.map((call) => call.action)).toEqual(['DescribeStacks']);
  });
});
