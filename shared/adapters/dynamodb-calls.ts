import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  BatchGetCommandInput,
  BatchWriteCommandInput,
  DeleteCommandInput,
  GetCommandInput,
  PutCommandInput,
  QueryCommandInput,
  TransactGetCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type ClientSettings,
  clientSettings,
  signingWithOneSigner,
} from './aws-client-settings.js';

/**
 * How the kit (dynamodb.ts) reaches DynamoDB: the SDK's low-level client with cached middleware
 * stacks, its inputs marshalled and its outputs unmarshalled here with `util-dynamodb`, so every
 * caller reads and writes native values as with the DocumentClient. The DocumentClient cannot
 * reuse a resolved stack (its commands resolve one that closes over their own input), and
 * resolving the stack anew is about a quarter of a call's CPU (docs/performance.md, "AWS SDK
 * clients, lean"). The DocumentClient stays for calls the kit has no helper for.
 */

/** An item, in native values. */
export type Item = Record<string, unknown>;

/** One call as a middleware sees it: the operation (`GetItem`) and its input, native values. */
export interface DynamoCall {
  operation: string;
  input: Item;
}

/**
 * Runs around a call, once (its retries inside): may look at it or change its input, refuse it
 * by throwing, time it, or answer for it. `next` sends the call and resolves to its output, in
 * native values; what the middleware resolves to is the call's output. The bench's call counter
 * and the tests that record calls are middlewares.
 */
export type DynamoMiddleware = (call: DynamoCall, next: () => Promise<Item>) => Promise<unknown>;

/** The clients of one DynamoDB endpoint, and what runs around each of their calls. */
export interface DynamoClients {
  /** The low-level client the kit's calls go through, its middleware stacks cached. */
  readonly client: DynamoDBClient;
  /** The DocumentClient, for calls the kit has no helper for; built on first use. */
  document(): DynamoDBDocumentClient;
  /** Run around every call of both, the first outermost (`aroundDynamoCalls`). */
  readonly middlewares: DynamoMiddleware[];
}

/**
 * The clients as the service builds them: the lean client settings (aws-client-settings.ts),
 * one socket pool, attributes whose value is undefined left out. `endpoint` points them
 * elsewhere (DynamoDB Local, a test's stand-in).
 */
export function dynamoClients(settings: ClientSettings = {}): DynamoClients {
  const config = clientSettings(settings);
  const middlewares: DynamoMiddleware[] = [];
  let document: DynamoDBDocumentClient | undefined;
  return {
    client: signingWithOneSigner(new DynamoDBClient(config)),
    middlewares,
    document() {
      document ??= documentClient(
        signingWithOneSigner(new DynamoDBClient({ ...config, cacheMiddleware: false })),
        middlewares,
      );
      return document;
    },
  };
}

function documentClient(
  lowLevel: DynamoDBClient,
  middlewares: DynamoMiddleware[],
): DynamoDBDocumentClient {
  const document = DynamoDBDocumentClient.from(lowLevel, {
    marshallOptions: { removeUndefinedValues: true },
  });
  // Its first step, before marshalling and retries: the same middlewares see native values.
  document.middlewareStack.add(
    (next, context) => async (args) => {
      let response: unknown;
      const output = await around(
        middlewares,
        String(context.commandName).replace(/Command$/, ''),
        args.input as Item,
        async () => {
          const result = await next(args);
          response = result.response;
          return result.output as Item;
        },
      );
      return { response, output } as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize' },
  );
  return document;
}

async function around(
  middlewares: DynamoMiddleware[],
  operation: string,
  input: Item,
  send: (input: Item) => Promise<Item>,
): Promise<Item> {
  const call: DynamoCall = { operation, input };
  const run = middlewares.reduceRight<() => Promise<Item>>(
    (next, middleware) => async () => (await middleware(call, next)) as Item,
    () => send(call.input),
  );
  return run();
}

type Wire = Record<string, AttributeValue>;

const wire = (value: Item): Wire => marshall(value, { removeUndefinedValues: true });
const native = (value: Wire): Item => unmarshall(value);
/** An item as DynamoDB sends it (an output's, or one a refusal carries), in native values. */
export const nativeOf = (value: Wire | undefined): Item | undefined =>
  value === undefined ? undefined : native(value);

/**
 * An input with its expression values, item, key and start key marshalled, the rest as given:
 * the low-level command's input (`Input` names it; the fields it converts are all the kit sends).
 */
function wireFields<Input>(input: object): Input {
  const { ExpressionAttributeValues, Key, Item, ExclusiveStartKey, ...rest } = input as {
    ExpressionAttributeValues?: Item;
    Key?: Item;
    Item?: Item;
    ExclusiveStartKey?: Item;
  };
  return {
    ...rest,
    ...(ExpressionAttributeValues && {
      ExpressionAttributeValues: wire(ExpressionAttributeValues),
    }),
    ...(Key && { Key: wire(Key) }),
    ...(Item && { Item: wire(Item) }),
    ...(ExclusiveStartKey && { ExclusiveStartKey: wire(ExclusiveStartKey) }),
  } as Input;
}

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
type TransactWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const wireWrite = (request: WriteRequest) => ({
  ...(request.PutRequest && { PutRequest: { Item: wire(request.PutRequest.Item ?? {}) } }),
  ...(request.DeleteRequest && { DeleteRequest: { Key: wire(request.DeleteRequest.Key ?? {}) } }),
});

const nativeWrite = (request: {
  PutRequest?: { Item: Wire | undefined };
  DeleteRequest?: { Key: Wire | undefined };
}): WriteRequest => ({
  ...(request.PutRequest && { PutRequest: { Item: native(request.PutRequest.Item ?? {}) } }),
  ...(request.DeleteRequest && { DeleteRequest: { Key: native(request.DeleteRequest.Key ?? {}) } }),
});

const wireTransactWrite = (item: TransactWrite): TransactWriteItem => ({
  ...(item.Put && { Put: wireFields(item.Put) }),
  ...(item.Update && { Update: wireFields(item.Update) }),
  ...(item.Delete && { Delete: wireFields(item.Delete) }),
  ...(item.ConditionCheck && { ConditionCheck: wireFields(item.ConditionCheck) }),
});

/** What the kit's calls answer, native values (the fields the kit reads; the rest as sent). */
export interface CallOutputs {
  GetItem: { Item?: Item };
  PutItem: { Attributes?: Item };
  UpdateItem: { Attributes?: Item };
  DeleteItem: { Attributes?: Item };
  Query: { Items?: Item[]; LastEvaluatedKey?: Item };
  BatchGetItem: {
    Responses?: Record<string, Item[]>;
    UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
  };
  BatchWriteItem: { UnprocessedItems?: Record<string, WriteRequest[]> };
  TransactGetItems: { Responses?: { Item?: Item }[] };
  TransactWriteItems: Item;
}

/** What the kit's calls take, native values (the DocumentClient's inputs). */
export interface CallInputs {
  GetItem: GetCommandInput;
  PutItem: PutCommandInput;
  UpdateItem: UpdateCommandInput;
  DeleteItem: DeleteCommandInput;
  Query: QueryCommandInput;
  BatchGetItem: BatchGetCommandInput;
  BatchWriteItem: BatchWriteCommandInput;
  TransactGetItems: TransactGetCommandInput;
  TransactWriteItems: TransactWriteCommandInput;
}

const mapValues = <T, U>(record: Record<string, T> | undefined, map: (value: T) => U) =>
  record === undefined
    ? undefined
    : Object.fromEntries(Object.entries(record).map(([name, value]) => [name, map(value)]));

/** Each operation: its native input marshalled, sent, and its answer unmarshalled. */
const senders: {
  [Operation in keyof CallInputs]: (
    client: DynamoDBClient,
    input: CallInputs[Operation],
  ) => Promise<CallOutputs[Operation]>;
} = {
  async GetItem(client, input) {
    const output = await client.send(new GetItemCommand(wireFields(input)));
    return { ...output, Item: nativeOf(output.Item) };
  },
  async PutItem(client, input) {
    const output = await client.send(new PutItemCommand(wireFields(input)));
    return { ...output, Attributes: nativeOf(output.Attributes) };
  },
  async UpdateItem(client, input) {
    const output = await client.send(new UpdateItemCommand(wireFields(input)));
    return { ...output, Attributes: nativeOf(output.Attributes) };
  },
  async DeleteItem(client, input) {
    const output = await client.send(new DeleteItemCommand(wireFields(input)));
    return { ...output, Attributes: nativeOf(output.Attributes) };
  },
  async Query(client, input) {
    const output = await client.send(new QueryCommand(wireFields(input)));
    return {
      ...output,
      Items: output.Items?.map(native),
      LastEvaluatedKey: nativeOf(output.LastEvaluatedKey),
    };
  },
  async BatchGetItem(client, input) {
    const output = await client.send(
      new BatchGetItemCommand({
        RequestItems: mapValues(input.RequestItems, (request) => ({
          ...request,
          Keys: (request.Keys ?? []).map(wire),
        })),
      }),
    );
    return {
      ...output,
      Responses: mapValues(output.Responses, (items) => items.map(native)),
      UnprocessedKeys: mapValues(output.UnprocessedKeys, (request) => ({
        Keys: request.Keys?.map(native),
      })),
    };
  },
  async BatchWriteItem(client, input) {
    const output = await client.send(
      new BatchWriteItemCommand({
        RequestItems: mapValues(input.RequestItems, (requests) => requests.map(wireWrite)),
      }),
    );
    return {
      ...output,
      UnprocessedItems: mapValues(output.UnprocessedItems, (requests) => requests.map(nativeWrite)),
    };
  },
  async TransactGetItems(client, input) {
    const output = await client.send(
      new TransactGetItemsCommand({
        ...input,
        TransactItems: input.TransactItems?.map((item) => ({
          Get: item.Get && wireFields(item.Get),
        })),
      }),
    );
    return {
      ...output,
      Responses: output.Responses?.map((response) => ({ Item: nativeOf(response.Item) })),
    };
  },
  async TransactWriteItems(client, input) {
    const output = await client.send(
      new TransactWriteItemsCommand({
        ...input,
        TransactItems: input.TransactItems?.map(wireTransactWrite),
      }),
    );
    return { ...output };
  },
};

/**
 * One call through `clients`' low-level client, in native values both ways, with its
 * middlewares around it.
 */
export async function callDynamo<Operation extends keyof CallInputs>(
  clients: DynamoClients,
  operation: Operation,
  input: CallInputs[Operation],
): Promise<CallOutputs[Operation]> {
  const send = senders[operation] as (
    client: DynamoDBClient,
    input: Item,
  ) => Promise<CallOutputs[Operation]>;
  return (await around(clients.middlewares, operation, input as Item, (sent) =>
    send(clients.client, sent),
  )) as CallOutputs[Operation];
}
