import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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

/**
 * DynamoDB over its JSON protocol, signed with SigV4 on keep-alive connections: what the AWS SDK's
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
 * HTTP status DynamoDB answered it with. Not called `statusCode`: the API's error mapper takes an
 * error with a 4xx `statusCode` for a refused request body (middy's), so a throttling DynamoDB
 * (400 ThrottlingException once the retries are spent) answered "body must be valid JSON" — a
 * 400 the client does not retry — instead of a 500.
 */
export class DynamoError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

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

export interface DynamoClientOptions {
  /** @default DYNAMODB_ENDPOINT, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, else the region's */
  endpoint?: string;
  /** @default AWS_REGION, AWS_DEFAULT_REGION, else us-east-1 when an endpoint is given */
  region?: string;
  /** @default AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN */
  credentials?: Credentials;
}

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Attempts per call, the first included (the SDK's standard mode). */
const maxAttempts = 3;
/** One attempt's budget, connection included: DynamoDB answers in milliseconds. */
const attemptTimeoutMs = 3_000;

const retryableNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  // A single-item write met an ongoing transaction on its item: nothing was written.
  'TransactionConflictException',
  'InternalServerError',
  'ServiceUnavailable',
]);

const env = (name: string) => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

function credentialsFromEnvironment(): Credentials {
  const accessKeyId = env('AWS_ACCESS_KEY_ID');
  const secretAccessKey = env('AWS_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new Error(
      'DynamoDB needs credentials in the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them; the local runtime sets dummy ones)',
    );
  }
  return { accessKeyId, secretAccessKey, sessionToken: env('AWS_SESSION_TOKEN') };
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) =>
  createHmac('sha256', key).update(data, 'utf8').digest();

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
  private readonly endpoint: URL;
  private readonly region: string;
  private readonly agent: HttpAgent;
  private readonly middlewares: DynamoMiddleware[] = [];
  private credentials: Credentials | undefined;
  private signingKey: { date: string; key: Buffer } | undefined;

  constructor(private readonly options: DynamoClientOptions = {}) {
    const endpoint =
      options.endpoint ??
      env('DYNAMODB_ENDPOINT') ??
      env('AWS_ENDPOINT_URL_DYNAMODB') ??
      env('AWS_ENDPOINT_URL');
    const region =
      options.region ??
      env('AWS_REGION') ??
      env('AWS_DEFAULT_REGION') ??
      (endpoint === undefined ? undefined : 'us-east-1');
    if (region === undefined) {
      throw new Error('DynamoDB needs a region: AWS_REGION is not set');
    }
    this.region = region;
    this.endpoint = new URL(
      endpoint ??
        `https://dynamodb.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`,
    );
    // One pool per client: every call after the first reuses a connection (and its TLS session).
    this.agent =
      this.endpoint.protocol === 'http:'
        ? new HttpAgent({ keepAlive: true, maxSockets: 64 })
        : new HttpsAgent({ keepAlive: true, maxSockets: 64 });
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
    const send = () => this.sendWithRetries(operation, JSON.stringify(wire, binaryAsBase64));
    let next: () => Promise<unknown> = send;
    for (let index = this.middlewares.length - 1; index >= 0; index--) {
      const middleware = this.middlewares[index]!;
      const inner = next;
      next = () => middleware({ operation, input, wire: wire as Record<string, unknown> }, inner);
    }
    return (await next()) as Record<string, unknown>;
  }

  private async sendWithRetries(
    operation: Operation,
    payload: string,
  ): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(operation, payload);
      } catch (error) {
        if (attempt >= maxAttempts || !isRetryable(error)) throw error;
        // Full jitter on an exponential base: retries of many callers spread out.
        await new Promise((resume) => setTimeout(resume, Math.random() * 50 * 2 ** attempt));
      }
    }
  }

  private send(operation: Operation, payload: string): Promise<Record<string, unknown>> {
    const headers = this.signedHeaders(operation, payload);
    const request = this.endpoint.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          protocol: this.endpoint.protocol,
          hostname: this.endpoint.hostname,
          port: this.endpoint.port,
          path: '/',
          method: 'POST',
          agent: this.agent,
          headers,
          timeout: attemptTimeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: Record<string, unknown>;
            try {
              // Binary attribute values travel as base64; only a body holding one pays the reviver.
              parsed =
                text === ''
                  ? {}
                  : (JSON.parse(
                      text,
                      text.includes('"B"') || text.includes('"BS"') ? binaryFromBase64 : undefined,
                    ) as Record<string, unknown>);
            } catch {
              reject(new DynamoError('InvalidResponse', `${operation}: HTTP ${status}`, status));
              return;
            }
            if (status >= 200 && status < 300) resolve(parsed);
            else reject(errorOf(status, parsed));
          });
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(
          Object.assign(new Error(`${operation}: no answer within ${attemptTimeoutMs} ms`), {
            code: 'ETIMEDOUT',
          }),
        ),
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  /** SigV4 (docs: "Create a signed AWS API request"): the headers of one request, signed. */
  private signedHeaders(operation: Operation, payload: string): Record<string, string> {
    this.credentials ??= this.options.credentials ?? credentialsFromEnvironment();
    const { accessKeyId, secretAccessKey, sessionToken } = this.credentials;
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const date = amzDate.slice(0, 8);
    const payloadHash = hex(payload);
    // The headers the SDK signs for DynamoDB, the payload's hash included.
    const headers: Record<string, string> = {
      'content-type': 'application/x-amz-json-1.0',
      host: this.endpoint.host,
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': amzDate,
      ...(sessionToken === undefined ? {} : { 'x-amz-security-token': sessionToken }),
      'x-amz-target': `DynamoDB_20120810.${operation}`,
    };
    // Already lower-case and in order: the canonical headers are the headers as they are.
    const names = Object.keys(headers);
    const canonicalRequest = [
      'POST',
      '/',
      '',
      ...names.map((name) => `${name}:${headers[name]}`),
      '',
      names.join(';'),
      payloadHash,
    ].join('\n');
    const scope = `${date}/${this.region}/dynamodb/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
    if (this.signingKey?.date !== date) {
      const dated = hmac(`AWS4${secretAccessKey}`, date);
      this.signingKey = {
        date,
        key: hmac(hmac(hmac(dated, this.region), 'dynamodb'), 'aws4_request'),
      };
    }
    const signature = createHmac('sha256', this.signingKey.key).update(stringToSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
    headers['content-length'] = String(Buffer.byteLength(payload));
    return headers;
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

function errorOf(status: number, body: Record<string, unknown>): DynamoError {
  const name =
    String(body.__type ?? `HTTP${status}`)
      .split('#')
      .pop() ?? 'UnknownError';
  const message = String(body.message ?? body.Message ?? name);
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

function isRetryable(error: unknown): boolean {
  if (error instanceof DynamoError)
    return error.httpStatus >= 500 || retryableNames.has(error.name);
  // A network failure: a reset keep-alive connection, a refused or timed-out one.
  const code = (error as NodeJS.ErrnoException).code;
  return ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN'].includes(code ?? '');
}
