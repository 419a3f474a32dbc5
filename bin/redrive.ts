/**
 * `npm run redrive -- <queue> [--stage <stage>] [--rate <messages per second>] [--wait]`
 *
 * Moves the messages of a work queue's dead-letter queue back to the queue, with SQS's own
 * message move task (StartMessageMoveTask): SQS moves them in the background, at up to `--rate`
 * messages a second (its own pace by default), and the command returns at once unless `--wait`
 * asks it to report until the task ends. The stage's data stack outputs name both queues
 * (infra/stack-outputs.ts). Uses the AWS credentials and region of the environment, as the AWS
 * CLI does (docs/operations.md, "Redriving a dead-letter queue", lists the permissions).
 *
 * Exit status: 0 moved (or nothing to move), 1 the task failed or AWS refused, 2 a usage error.
 */
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { queueOutputNames, redriveQueues, stackNameOf } from '../infra/stack-outputs.js';

const usage = `usage: npm run redrive -- <${redriveQueues.join('|')}> [--stage <stage>] [--rate <messages per second>] [--wait]`;

/** How often `--wait` asks how the task is doing. */
const pollMs = Number(process.env.REDRIVE_POLL_MS ?? 5_000);

class UsageError extends Error {}

interface Request {
  queue: (typeof redriveQueues)[number];
  stage: string;
  rate?: number;
  wait: boolean;
}

function request(argv: string[]): Request {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: 'string', default: 'test' },
      rate: { type: 'string' },
      wait: { type: 'boolean', default: false },
    },
  });
  const [queue, ...extra] = positionals;
  if (
    queue === undefined ||
    extra.length > 0 ||
    !(redriveQueues as readonly string[]).includes(queue)
  ) {
    throw new UsageError(`name one queue: ${redriveQueues.join(', ')}`);
  }
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  // SQS's own bounds for MaxNumberOfMessagesPerSecond.
  if (rate !== undefined && (!Number.isInteger(rate) || rate < 1 || rate > 500)) {
    throw new UsageError('--rate must be a whole number of messages per second, 1 to 500');
  }
  return { queue: queue as Request['queue'], stage: values.stage, rate, wait: values.wait };
}

async function queueArns(stage: string, queue: string) {
  const stackName = stackNameOf(stage, 'data');
  const cloudFormation = new CloudFormationClient({});
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = new Map(
    (Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]),
  );
  const names = queueOutputNames(queue);
  const source = outputs.get(names.deadLetterQueueArn);
  const destination = outputs.get(names.queueArn);
  if (source === undefined || destination === undefined) {
    throw new Error(
      `${stackName} has no outputs ${names.deadLetterQueueArn} and ${names.queueArn}: deploy this version of the stack first`,
    );
  }
  return { source, destination };
}

/** About how many messages wait in the queue of `arn` (`arn:aws:sqs:<region>:<account>:<name>`). */
async function waitingIn(sqs: SQSClient, arn: string): Promise<number> {
  const [, , , , account, name] = arn.split(':');
  const { QueueUrl } = await sqs.send(
    new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }),
  );
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}

async function redrive({ queue, stage, rate, wait }: Request): Promise<number> {
  const { source, destination } = await queueArns(stage, queue);
  const sqs = new SQSClient({});
  const waiting = await waitingIn(sqs, source);
  if (waiting === 0) {
    console.log(
      `Nothing to move: the ${queue} dead-letter queue of ${stackNameOf(stage, 'data')} is empty.`,
    );
    return 0;
  }
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({
      SourceArn: source,
      DestinationArn: destination,
      MaxNumberOfMessagesPerSecond: rate,
    }),
  );
  console.log(
    `Moving about ${waiting} message(s) from ${source} back to ${destination} (task ${TaskHandle}).`,
  );
  if (!wait) {
    console.log('SQS moves them in the background; add --wait to follow the task to its end.');
    return 0;
  }
  for (;;) {
    await new Promise((resume) => setTimeout(resume, pollMs));
    const { Results } = await sqs.send(
      new ListMessageMoveTasksCommand({ SourceArn: source, MaxResults: 1 }),
    );
    const task = Results?.[0];
    const moved = `${task?.ApproximateNumberOfMessagesMoved ?? 0} of ${task?.ApproximateNumberOfMessagesToMove ?? '?'}`;
    switch (task?.Status) {
      case 'COMPLETED':
        console.log(`Done: ${moved} moved.`);
        return 0;
      case 'RUNNING':
        console.log(`Moving: ${moved} so far.`);
        break;
      default:
        console.error(
          `The task ended ${task?.Status ?? 'out of sight'} after ${moved}: ${task?.FailureReason ?? 'no reason given'}`,
        );
        return 1;
    }
  }
}

try {
  process.exitCode = await redrive(request(process.argv.slice(2)));
} catch (error) {
  if (
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exitCode = 2;
  } else {
    console.error(`npm run redrive: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
