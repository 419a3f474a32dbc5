/**
 * What one AWS SDK call costs the service's process: `npm run bench:sdk-call`. Sequential calls
 * against a stub in another process (so the stub's CPU is not counted) that answers what DynamoDB
 * and SQS answer; the process CPU per call after a warm-up, for each way of building the client,
 * alternating so that a change in the machine's load touches each alike
 * (docs/performance.md, "AWS SDK clients, lean").
 *
 *   SDK_CALLS=N   calls measured per run (default 6000)
 *   SDK_RUNS=N    runs of each variant (default 3)
 */
import { fork } from 'node:child_process';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { clientSettings, signingWithOneSigner } from '../shared/adapters/aws-client-settings.js';
import { callDynamo, dynamoClients } from '../shared/adapters/dynamodb-calls.js';
import { sqsClient } from '../shared/adapters/sqs.js';

const calls = Number(process.env.SDK_CALLS ?? 6000);
const runs = Number(process.env.SDK_RUNS ?? 3);

process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
process.env.AWS_REGION ??= 'us-east-1';

const stub = fork(new URL('./sdk-call-stub.ts', import.meta.url), [], {
  execArgv: ['--import', 'tsx'],
});
const port = await new Promise<number>((resolve) => stub.once('message', resolve));
const endpoint = `http://127.0.0.1:${port}`;

const key = { pk: 'SESSION#bench', sk: 'SESSION' };
const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient(clientSettings({ endpoint, cacheMiddleware: false })),
);
const kitClients = dynamoClients({ endpoint });
const lowLevel = (cacheMiddleware: boolean) =>
  new DynamoDBClient(clientSettings({ endpoint, cacheMiddleware }));
const sqs = (cacheMiddleware: boolean) =>
  new SQSClient(clientSettings({ endpoint, cacheMiddleware }));

const getThroughLowLevel = (client: DynamoDBClient) => async () => {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: 'service', Key: marshall(key), ConsistentRead: true }),
  );
  return Item && unmarshall(Item);
};
const sendThrough = (client: SQSClient) => () =>
  client.send(
    new SendMessageCommand({
      QueueUrl: `${endpoint}/000000000000/delivery`,
      MessageBody: JSON.stringify({ deliveryId: 'dlv_bench', attempt: 2 }),
    }),
  );

const variants: { name: string; call: () => Promise<unknown> }[] = [
  {
    name: 'GetItem, DocumentClient',
    call: () =>
      documentClient.send(new GetCommand({ TableName: 'service', Key: key, ConsistentRead: true })),
  },
  { name: 'GetItem, DynamoDBClient + util-dynamodb', call: getThroughLowLevel(lowLevel(false)) },
  {
    name: 'GetItem, DynamoDBClient + util-dynamodb, cacheMiddleware',
    call: getThroughLowLevel(lowLevel(true)),
  },
  {
    name: 'GetItem, DynamoDBClient + util-dynamodb, cacheMiddleware, one signer',
    call: getThroughLowLevel(signingWithOneSigner(lowLevel(true))),
  },
  {
    name: 'GetItem, the kit (as the service builds it)',
    call: () =>
      callDynamo(kitClients, 'GetItem', { TableName: 'service', Key: key, ConsistentRead: true }),
  },
  { name: 'SQS SendMessage', call: sendThrough(sqs(false)) },
  { name: 'SQS SendMessage, cacheMiddleware', call: sendThrough(sqs(true)) },
  {
    name: 'SQS SendMessage, cacheMiddleware, one signer (as the service builds it)',
    call: sendThrough(sqsClient({ endpoint })),
  },
];

/** Process CPU microseconds per call of `call`, after a warm-up of a third as many. */
async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < calls / 3; index++) await call();
  const before = process.cpuUsage();
  for (let index = 0; index < calls; index++) await call();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / calls;
}

const measured = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
for (let run = 0; run < runs; run++) {
  for (const variant of variants) measured.get(variant.name)?.push(await cpuPerCall(variant.call));
}
stub.kill();

const ms = (microseconds: number) => (microseconds / 1000).toFixed(2);
console.log(`| call | CPU ms per call (${runs} runs of ${calls}) |\n|---|---:|`);
for (const [name, values] of measured) {
  console.log(`| ${name} | ${ms(Math.min(...values))}–${ms(Math.max(...values))} |`);
}
