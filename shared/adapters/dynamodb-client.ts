import { randomUUID } from 'node:crypto';
import type {
  BatchGetCommandInput,
  BatchWriteCommandInput,
  DeleteCommandInput,
  GetCommandInput,
  PutCommandInput,
  QueryCommandInput,
  ScanCommandInput,
  TransactGetCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type AwsClientOptions,
  AwsError,
  jsonAnswerOf,
  SignedAwsClient,
} from './aws-signed-request.js';

/**
 * DynamoDB over its JSON protocol, signed with SigV4 on keep-alive connections
 * (aws-signed-request.ts, shared with our SQS and SNS clients): what the AWS SDK's
 * DocumentClient does, without its per-call machinery. Measured on the 2-core dev machine, a
 * GetItem costs 0.3–0.4 ms of CPU here against 1.2–1.6 ms through the DocumentClient (schema
 * serde, endpoint rules, middleware stack, signer wrapper: docs/performance.md), and the bundle
 * of a function that only needs DynamoDB loses the SDK's ~330 KiB.
 *
 * Inputs and outputs are the DocumentClient's (native JavaScript values; its input types are
 * reused), so repositories read as they did. What the SDK did that matters here is done too:
 * region and credentials from the environment (Lambda sets AWS_REGION, AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN), the endpoint override variables, an idempotency
 * token on every TransactWriteItems (its retries within 10 minutes are no-ops), and retries with
 * jittered backoff of throttling, 5xx and network failures — writes included, as the SDK retries
 * them (repositories that care recognise their own earlier write).
 */

export type Item = Record<string, unknown>;

/** An operation of DynamoDB's API, as `X-Amz-Target` names it. */
export type Operation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'TransactGetItems'
  | 'TransactWriteItems';

/** One call as a middleware sees it: the operation, its input, and that input as sent. */
export interface DynamoCall {
  operation: Operation;
  input: object;
  /** The request body: attribute values in DynamoDB's wire format (`{S: …}`). */
  wire: Record<string, unknown>;
}

/**
 * Runs around every call (once per call, retries inside): may look at it, refuse it by throwing,
 * or time it. The local runtime's item-access guard and the bench's call counter are middlewares.
 */
export type DynamoMiddleware = (call: DynamoCall, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * An error DynamoDB answered, named as its `__type` names it (`ValidationException`, …), with the
 * HTTP status DynamoDB answered it with (AwsError says why that is not `statusCode`).
 */
export class DynamoError extends AwsError {}

/** A condition failed; `item` is the item as it was, when the call asked for it. */
export class ConditionalCheckFailed extends DynamoError {
  constructor(
    message: string,
    readonly item: Item | undefined,
  ) {
    super('ConditionalCheckFailedException', message, 400);
  }
}

export interface CancellationReason {
  /** `ConditionalCheckFailed`, `TransactionConflict`, `None`, … */
  code: string;
  /** The item as it was, when its operation asked for it on a failed condition. */
  item?: Item;
}

/** A transaction was cancelled; one reason per item, in the order of the request. */
export class TransactionCanceled extends DynamoError {
  constructor(
    message: string,
    readonly reasons: CancellationReason[],
  ) {
    super('TransactionCanceledException', message, 400);
  }
}

export interface GetOutput {
  Item?: Item;
}
export interface WriteOutput {
  Attributes?: Item;
}
export interface QueryOutput {
  Items?: Item[];
  LastEvaluatedKey?: Item;
}
export interface BatchGetOutput {
  Responses?: Record<string, Item[]>;
  UnprocessedKeys?: BatchGetCommandInput['RequestItems'];
}
export interface BatchWriteOutput {
  UnprocessedItems?: BatchWriteCommandInput['RequestItems'];
}
export interface TransactGetOutput {
  Responses?: { Item?: Item }[];
}

/** @see AwsClientOptions; the endpoint defaults to DYNAMODB_ENDPOINT, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL */
export type DynamoClientOptions = AwsClientOptions;

const dynamodbService = {
  title: 'DynamoDB',
  signingName: 'dynamodb',
  endpointVariables: ['DYNAMODB_ENDPOINT', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL'],
  retryable: new Set([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'TransactionInProgressException',
    // A single-item write met an ongoing transaction on its item: nothing was written.
    'TransactionConflictException',
    'InternalServerError',
    'ServiceUnavailable',
  ]),
};

/** A value marshalled as the DocumentClient marshals (undefined attributes left out). */
const wire = (value: Item) => marshall(value, { removeUndefinedValues: true });
const native = (value: Record<string, unknown>) =>
  unmarshall(value as Parameters<typeof unmarshall>[0]);

function withValues<T extends { ExpressionAttributeValues?: Item }>(input: T): T {
  return input.ExpressionAttributeValues === undefined
    ? input
    : { ...input, ExpressionAttributeValues: wire(input.ExpressionAttributeValues) };
}

function withKey<T extends { Key?: Item; ExpressionAttributeValues?: Item }>(input: T): T {
  const valued = withValues(input);
  return input.Key === undefined ? valued : { ...valued, Key: wire(input.Key) };
}

function withItem<T extends { Item?: Item; ExpressionAttributeValues?: Item }>(input: T): T {
  const valued = withValues(input);
  return input.Item === undefined ? valued : { ...valued, Item: wire(input.Item) };
}

function withStartKey<T extends { ExclusiveStartKey?: Item; ExpressionAttributeValues?: Item }>(
  input: T,
): T {
  const valued = withValues(input);
  return input.ExclusiveStartKey === undefined
    ? valued
    : { ...valued, ExclusiveStartKey: wire(input.ExclusiveStartKey) };
}

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>;
type GetRequests = NonNullable<BatchGetCommandInput['RequestItems']>;

function mapWriteRequests(requests: WriteRequests, convert: (item: Item) => Item): WriteRequests {
  return Object.fromEntries(
    Object.entries(requests).map(([table, writes]) => [
      table,
      writes.map((write) =>
        write.PutRequest?.Item !== undefined
          ? { PutRequest: { Item: convert(write.PutRequest.Item) } }
          : { DeleteRequest: { Key: convert(write.DeleteRequest?.Key ?? {}) } },
      ),
    ]),
  );
}

function mapGetRequests(requests: GetRequests, convert: (item: Item) => Item): GetRequests {
  return Object.fromEntries(
    Object.entries(requests).map(([table, request]) => [
      table,
      { ...request, Keys: (request.Keys ?? []).map(convert) },
    ]),
  );
}

const nativeItems = (items: unknown) =>
  Array.isArray(items) ? items.map((item) => native(item as Item)) : undefined;
const nativeItem = (item: unknown) => (item === undefined ? undefined : native(item as Item));

export class DynamoClient {
  private readonly transport: SignedAwsClient;
  private readonly middlewares: DynamoMiddleware[] = [];

  constructor(options: DynamoClientOptions = {}) {
    this.transport = new SignedAwsClient(dynamodbService, options);
  }

  /** Adds a middleware around every later call; the first added runs outermost. */
  use(middleware: DynamoMiddleware): void {
    this.middlewares.push(middleware);
  }

  async get(input: GetCommandInput): Promise<GetOutput> {
    const output = await this.call('GetItem', input, withKey(input));
    return { Item: nativeItem(output.Item) };
  }

  async put(input: PutCommandInput): Promise<WriteOutput> {
    const output = await this.call('PutItem', input, withItem(input));
    return { Attributes: nativeItem(output.Attributes) };
  }

  async update(input: UpdateCommandInput): Promise<WriteOutput> {
    const output = await this.call('UpdateItem', input, withKey(input));
    return { Attributes: nativeItem(output.Attributes) };
  }

  async delete(input: DeleteCommandInput): Promise<WriteOutput> {
    const output = await this.call('DeleteItem', input, withKey(input));
    return { Attributes: nativeItem(output.Attributes) };
  }

  async query(input: QueryCommandInput): Promise<QueryOutput> {
    const output = await this.call('Query', input, withStartKey(input));
    return {
      Items: nativeItems(output.Items),
      LastEvaluatedKey: nativeItem(output.LastEvaluatedKey),
    };
  }

  async scan(input: ScanCommandInput): Promise<QueryOutput> {
    const output = await this.call('Scan', input, withStartKey(input));
    return {
      Items: nativeItems(output.Items),
      LastEvaluatedKey: nativeItem(output.LastEvaluatedKey),
    };
  }

  async batchGet(input: BatchGetCommandInput): Promise<BatchGetOutput> {
    const output = await this.call('BatchGetItem', input, {
      ...input,
      RequestItems: mapGetRequests(input.RequestItems ?? {}, wire),
    });
    const responses = (output.Responses ?? {}) as Record<string, Item[]>;
    const unprocessed = output.UnprocessedKeys as GetRequests | undefined;
    return {
      Responses: Object.fromEntries(
        Object.entries(responses).map(([table, items]) => [table, items.map(native)]),
      ),
      UnprocessedKeys: unprocessed === undefined ? undefined : mapGetRequests(unprocessed, native),
    };
  }

  async batchWrite(input: BatchWriteCommandInput): Promise<BatchWriteOutput> {
    const output = await this.call('BatchWriteItem', input, {
      ...input,
      RequestItems: mapWriteRequests(input.RequestItems ?? {}, wire),
    });
    const unprocessed = output.UnprocessedItems as WriteRequests | undefined;
    return {
      UnprocessedItems:
        unprocessed === undefined ? undefined : mapWriteRequests(unprocessed, native),
    };
  }

  async transactGet(input: TransactGetCommandInput): Promise<TransactGetOutput> {
    const output = await this.call('TransactGetItems', input, {
      ...input,
      TransactItems: (input.TransactItems ?? []).map((item) =>
        item.Get === undefined ? item : { Get: withKey(item.Get) },
      ),
    });
    return {
      Responses: ((output.Responses ?? []) as { Item?: Item }[]).map((response) => ({
        Item: nativeItem(response.Item),
      })),
    };
  }

  /** Throws TransactionCanceled when a condition fails or another transaction conflicts. */
  async transactWrite(input: TransactWriteCommandInput): Promise<void> {
    await this.call('TransactWriteItems', input, {
      ...input,
      // The same token on every retry: DynamoDB applies the transaction once.
      ClientRequestToken: input.ClientRequestToken ?? randomUUID(),
      TransactItems: (input.TransactItems ?? []).map((item) => {
        if (item.ConditionCheck !== undefined)
          return { ConditionCheck: withKey(item.ConditionCheck) };
        if (item.Put !== undefined) return { Put: withItem(item.Put) };
        if (item.Delete !== undefined) return { Delete: withKey(item.Delete) };
        if (item.Update !== undefined) return { Update: withKey(item.Update) };
        return item;
      }),
    });
  }

  private async call(
    operation: Operation,
    input: object,
    wire: object,
  ): Promise<Record<string, unknown>> {
    const send = () =>
      this.transport.send(
        {
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `DynamoDB_20120810.${operation}`,
          },
          body: JSON.stringify(wire, binaryAsBase64),
          what: operation,
        },
        (response) =>
          jsonAnswerOf(
            operation,
            response,
            errorOf,
            // Binary attribute values travel as base64; only a body holding one pays the reviver.
            response.text.includes('"B"') || response.text.includes('"BS"')
              ? binaryFromBase64
              : undefined,
          ),
      );
    let next: () => Promise<unknown> = send;
    for (let index = this.middlewares.length - 1; index >= 0; index--) {
      const middleware = this.middlewares[index]!;
      const inner = next;
      next = () => middleware({ operation, input, wire: wire as Record<string, unknown> }, inner);
    }
    return (await next()) as Record<string, unknown>;
  }
}

/** JSON.stringify's replacer: binary attribute values (`B`, `BS`) as base64, as the protocol wants. */
function binaryAsBase64(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  return original instanceof Uint8Array
    ? Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64')
    : value;
}

/** Bytes as the SDK hands them out: a plain Uint8Array. */
function bytesOf(base64: string): Uint8Array {
  const bytes = Buffer.from(base64, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** JSON.parse's reviver: the base64 of binary attribute values back to bytes. */
function binaryFromBase64(key: string, value: unknown): unknown {
  if (key === 'B' && typeof value === 'string') return bytesOf(value);
  if (key === 'BS' && Array.isArray(value)) {
    return value.map((member) => (typeof member === 'string' ? bytesOf(member) : member));
  }
  return value;
}

function errorOf(
  name: string,
  message: string,
  status: number,
  body: Record<string, unknown>,
): DynamoError {
  if (name === 'ConditionalCheckFailedException') {
    return new ConditionalCheckFailed(message, nativeItem(body.Item));
  }
  if (name === 'TransactionCanceledException') {
    const reasons = (body.CancellationReasons ?? []) as { Code?: string; Item?: Item }[];
    return new TransactionCanceled(
      message,
      reasons.map((reason) => ({ code: reason.Code ?? 'None', item: nativeItem(reason.Item) })),
    );
  }
  return new DynamoError(name, message, status);
}
