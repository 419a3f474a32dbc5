import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type {
  BatchWriteCommandInput,
  DeleteCommandInput,
  DynamoDBDocumentClient,
  PutCommandInput,
  QueryCommandInput,
  TransactGetCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { Refusal } from '../domain/errors.js';
import { type PageOf, type PageRequest, pageOffset } from '../domain/pages.js';
import {
  type CallInputs,
  type CallOutputs,
  callDynamo,
  type DynamoClients,
  type DynamoMiddleware,
  dynamoClients,
  type Item,
  nativeOf,
} from './dynamodb-calls.js';
import type { ItemKey } from './keys.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import { tableIndexes, tableKeys } from './table-definition.js';

export type { DynamoCall, DynamoClients, DynamoMiddleware, Item } from './dynamodb-calls.js';
export { dynamoClients } from './dynamodb-calls.js';

/**
 * The DynamoDB kit every repository is written with: the clients (dynamodb-calls.ts), and the
 * few ways the table is read and written — one strongly consistent GetItem, conditional writes
 * whose failed condition is an answer rather than an error, chunked batch reads and writes that
 * resend what DynamoDB left unprocessed with one backoff, transactions that report which
 * condition failed, and the work queues kept on gsi2. Repositories add their items' shapes and
 * conditions, nothing else. DynamoDB's exceptions stop here: a failed condition or a cancelled
 * transaction is an answer of the kit (`Conditional`, `TransactionOutcome`), and anything else
 * reaches the caller as the SDK threw it, its request id in `$metadata`.
 */

let clients: DynamoClients | undefined;

/**
 * The DynamoDB clients every repository uses, built once per cold start, on first use.
 * DYNAMODB_ENDPOINT points them at DynamoDB Local (the local runtime and tests); on AWS it is
 * unset.
 */
function kit(): DynamoClients {
  clients ??= dynamoClients({ endpoint: process.env.DYNAMODB_ENDPOINT || undefined });
  return clients;
}

/** The DocumentClient of the kit's clients, for a call the kit has no helper for. */
export const dynamo = (): DynamoDBDocumentClient => kit().document();

/** The clients the kit uses now (a test that replaces them puts these back). */
export const dynamoInUse = (): DynamoClients => kit();

/** Replaces the clients (tests pointing at their own table or DynamoDB Local). */
export function useDynamo(replacement: DynamoClients): void {
  clients = replacement;
}

/**
 * Adds `middleware` around every later call of `target` (the kit's clients unless told), before
 * marshalling and retries. The first added runs outermost.
 */
export function aroundDynamoCalls(
  middleware: DynamoMiddleware,
  target: DynamoClients = kit(),
): void {
  target.middlewares.push(middleware);
}

/** One call of the kit, native values both ways. */
const call = <Operation extends keyof CallInputs>(
  operation: Operation,
  input: CallInputs[Operation],
): Promise<CallOutputs[Operation]> => callDynamo(kit(), operation, input);

/** Epoch milliseconds as the ISO text sort keys hold (they sort as time does). */
export const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/**
 * The wait before retry `retry` (0 for the first) of work DynamoDB handed back — unprocessed
 * batch items, a transaction conflict: exponential from 20 ms, with up to 20 ms of jitter so that
 * callers that collided do not collide again.
 */
const backoff = (retry: number) =>
  new Promise((resume) => setTimeout(resume, 20 * 2 ** retry + Math.random() * 20));

/** Retries of unprocessed batch items before giving up (about 10 s of backoff in all). */
const batchRetries = 8;

/** One item, strongly consistent unless `consistent: false`; `projection` names what to read. */
export async function getItem(
  key: ItemKey,
  options: { projection?: string; consistent?: boolean } = {},
): Promise<Item | undefined> {
  const { Item } = await call('GetItem', {
    TableName: tableName(),
    Key: key,
    ConsistentRead: options.consistent ?? true,
    ...(options.projection === undefined ? {} : { ProjectionExpression: options.projection }),
  });
  return Item;
}

/**
 * What a conditional write answered: done, with the attributes its `ReturnValues` asked for; or
 * refused, with the item as it was when its `ReturnValuesOnConditionCheckFailure` asked for it.
 */
export type Conditional = { ok: true; attributes?: Item } | { ok: false; item?: Item };

async function unlessRefused(write: Promise<{ Attributes?: Item }>): Promise<Conditional> {
  try {
    const { Attributes } = await write;
    return { ok: true, attributes: Attributes };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      return { ok: false, item: nativeOf(error.Item) };
    }
    throw error;
  }
}

/** An UpdateItem on the table under its ConditionExpression; a failed condition is `ok: false`. */
export const updateIf = (input: Omit<UpdateCommandInput, 'TableName'>): Promise<Conditional> =>
  unlessRefused(call('UpdateItem', { TableName: tableName(), ...input }));

/** A PutItem on the table under its ConditionExpression; a failed condition is `ok: false`. */
export const putIf = (input: Omit<PutCommandInput, 'TableName'>): Promise<Conditional> =>
  unlessRefused(call('PutItem', { TableName: tableName(), ...input }));

/** A DeleteItem on the table under its ConditionExpression; a failed condition is `ok: false`. */
export const deleteIf = (input: Omit<DeleteCommandInput, 'TableName'>): Promise<Conditional> =>
  unlessRefused(call('DeleteItem', { TableName: tableName(), ...input }));

/** Puts the item unless one with its key exists; false when it did. */
export async function putIfAbsent(item: Item): Promise<boolean> {
  const result = await putIf({ Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
  return result.ok;
}

/** One Query call: the items it read and where it stopped. */
export const query = (
  input: QueryCommandInput,
): Promise<{ Items?: Item[]; LastEvaluatedKey?: Item }> => call('Query', input);

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: Item | undefined;
  do {
    const page = await call('Query', { ...input, ExclusiveStartKey: cursor });
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return items;
}

/**
 * Query calls one page may take: a filter drops what a call read, and the next call reads on;
 * past this, the page is answered short, with its cursor where the reading stopped.
 */
const pageCalls = 8;

/** The key attributes of a query's items: the table's, and its index's when it reads one. */
function keyAttributes(input: QueryCommandInput): string[] {
  const index = tableIndexes.find((candidate) => candidate.indexName === input.IndexName);
  return [
    tableKeys.partitionKey,
    tableKeys.sortKey,
    ...(index === undefined ? [] : [index.partitionKey, index.sortKey]),
  ];
}

/** A cursor's position as a query's start key, in the list's own partition. */
const startOf = (
  content: { k: Record<string, string>; n: number },
  partition: Record<string, string>,
) => ({ start: { ...content.k, ...partition } as Item | undefined, before: content.n });

/**
 * One page of what a query matches, as a list answers it: `request.perPage` items after the
 * cursor's position, or after the items of the pages before a page number (read and dropped:
 * what reaching a page by number costs). Query calls with Limit, so a page costs its own items
 * (and one more, which tells whether another page follows) and never the list's history; a
 * FilterExpression may leave a call short, and the next call reads on, up to `pageCalls`.
 * `partition` is the list's partition key attribute, e.g.
 * `{ gsi1pk: … }`: left out of the cursors handed out, and put back into those received.
 */
export async function queryPage(
  input: QueryCommandInput,
  request: PageRequest,
  partition: Record<string, string>,
): Promise<PageOf<Item>> {
  const names = keyAttributes(input);
  const positionNames = names.filter((name) => !(name in partition));
  const from =
    request.cursor === undefined
      ? { start: undefined, before: 0 }
      : startOf(decodeCursor(request.cursor, positionNames), partition);
  const skip = request.cursor === undefined ? pageOffset(request) : 0;
  const wanted = skip + request.perPage;
  const found: Item[] = [];
  let position: Item | undefined = from.start;
  for (let call = 0; call < pageCalls && found.length <= wanted; call++) {
    // One item past the page: whether more follow is then known, not guessed.
    const page = await queryFrom(input, wanted + 1 - found.length, position, request.cursor);
    found.push(...(page.Items ?? []));
    position = page.LastEvaluatedKey;
    if (position === undefined) break;
  }
  if (found.length > wanted) {
    const last = found[wanted - 1]!;
    position = Object.fromEntries(names.map((name) => [name, last[name]]));
  }
  const items = found.slice(skip, wanted);
  const before = from.before + skip;
  const next =
    position === undefined
      ? undefined
      : encodeCursor({
          k: Object.fromEntries(positionNames.map((name) => [name, String(position[name])])),
          n: before + items.length,
        });
  return {
    items,
    next,
    page: Math.floor(before / request.perPage) + 1,
    total: before + items.length + (next === undefined ? 0 : 1),
  };
}

/**
 * One Query call of a page. A cursor whose position lies outside what this query may read (a
 * window other than its own) is refused by DynamoDB as a ValidationException: the cursor's fault.
 */
async function queryFrom(
  input: QueryCommandInput,
  limit: number,
  start: Item | undefined,
  cursor: string | undefined,
) {
  try {
    return await call('Query', { ...input, Limit: limit, ExclusiveStartKey: start });
  } catch (error) {
    if (cursor !== undefined && error instanceof Error && error.name === 'ValidationException') {
      throw new Refusal('foreignCursor', { cause: error });
    }
    throw error;
  }
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, index * size + size),
  );

/**
 * Sends `work` with `round` until DynamoDB leaves none of it unprocessed (throttling), waiting
 * `backoff` between rounds; `round` answers what was left.
 */
async function untilProcessed<T>(
  operation: string,
  work: T[],
  round: (pending: T[]) => Promise<T[]>,
): Promise<void> {
  let pending = work;
  for (let retry = -1; pending.length > 0; retry++) {
    if (retry >= batchRetries) throw new Error(`${operation} left ${pending.length} unprocessed`);
    if (retry >= 0) await backoff(retry);
    pending = await round(pending);
  }
}

/**
 * The items of `keys` that exist, in no particular order: BatchGetItem calls of 100 keys (its
 * limit), sent together. Keys must be distinct.
 */
export async function batchGetAll(
  keys: ItemKey[],
  options: { consistent?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<Item[]> {
  const found: Item[] = [];
  const read = async (pending: ItemKey[]) => {
    const result = await call('BatchGetItem', {
      RequestItems: {
        [tableName()]: {
          Keys: pending,
          ...(options.consistent ? { ConsistentRead: true } : {}),
          ...(options.projection === undefined ? {} : { ProjectionExpression: options.projection }),
          ...(options.names === undefined ? {} : { ExpressionAttributeNames: options.names }),
        },
      },
    });
    found.push(...(result.Responses?.[tableName()] ?? []));
    return (result.UnprocessedKeys?.[tableName()]?.Keys ?? []).map((key) => ({
      pk: String(key.pk),
      sk: String(key.sk),
    }));
  };
  await Promise.all(chunks(keys, 100).map((chunk) => untilProcessed('BatchGetItem', chunk, read)));
  return found;
}

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/**
 * Puts and deletes: BatchWriteItem calls of 25 requests (its limit), sent together, each
 * resending what DynamoDB left unprocessed. No two requests may name one key (DynamoDB refuses
 * such a batch).
 */
export async function batchWriteAll(requests: WriteRequest[]): Promise<void> {
  const write = async (pending: WriteRequest[]) => {
    const { UnprocessedItems } = await call('BatchWriteItem', {
      RequestItems: { [tableName()]: pending },
    });
    return UnprocessedItems?.[tableName()] ?? [];
  };
  await Promise.all(
    chunks(requests, 25).map((chunk) => untilProcessed('BatchWriteItem', chunk, write)),
  );
}

/** Deletes the items. */
export const deleteItems = (itemKeys: ItemKey[]): Promise<void> =>
  batchWriteAll(itemKeys.map((key) => ({ DeleteRequest: { Key: key } })));

/** Puts the items (replacing any with the same key). */
export const putItems = (items: Item[]): Promise<void> =>
  batchWriteAll(items.map((item) => ({ PutRequest: { Item: item } })));

/**
 * The outcome of a transactional write: done, or refused because the condition of the item at
 * `failedIndex` did not hold. `failedItem` is that item as it was, when its operation asked for it
 * with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`.
 */
export type TransactionOutcome =
  | { ok: true }
  | { ok: false; failedIndex: number; failedItem?: Item };

/** Tries of a transaction that keeps meeting conflicts, the first included. */
const transactionTries = 5;

/**
 * Runs a TransactWriteItems and reports which condition failed instead of throwing. Two
 * transactions touching one item at the same moment are both cancelled with TransactionConflict
 * (neither condition was evaluated), so those are retried with backoff until one wins and the
 * other sees its condition fail; when they keep conflicting, DynamoDB's exception is thrown
 * (`isTransactionConflict` tells it).
 */
export async function transactWrite(input: TransactWriteCommandInput): Promise<TransactionOutcome> {
  for (let retry = 0; ; retry++) {
    try {
      await call('TransactWriteItems', input);
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failedIndex = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failedIndex >= 0) {
        return { ok: false, failedIndex, failedItem: nativeOf(reasons[failedIndex]!.Item) };
      }
      if (retry + 1 >= transactionTries) throw error;
      await backoff(retry);
    }
  }
}

/**
 * The items of `itemKeys` read together as of one moment (TransactGetItems), in their order;
 * undefined where none exists.
 */
export async function transactGet(itemKeys: ItemKey[]): Promise<(Item | undefined)[]> {
  const input: TransactGetCommandInput = {
    TransactItems: itemKeys.map((Key) => ({ Get: { TableName: tableName(), Key } })),
  };
  const { Responses } = await call('TransactGetItems', input);
  return itemKeys.map((_, index) => Responses?.[index]?.Item);
}

/** Whether `error` is a transaction that other transactions kept cancelling (`transactWrite`). */
export const isTransactionConflict = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');

/**
 * Strongly consistent reads of single items, gathered into BatchGetItem calls: the reads asked
 * for in one turn of the event loop go as one call, each key once. Work that will read soon can
 * hold the reader (`hold`): reads then wait until every hold that was taken when the first of
 * them was asked is released — not for holds taken later, so a steady stream of new work never
 * keeps them waiting. The attempts of a worker's batch hold it during their claims, which
 * DynamoDB answers one by one: their targets then go in one call, not one call per claim.
 * Every read is sent after it was asked for, so whatever a caller wrote before asking is seen.
 */
export class BatchedReader {
  private waiting = new Map<string, { key: ItemKey; readers: ((item?: Item) => void)[] }>();
  private failures: ((error: unknown) => void)[] = [];
  private readonly holds = new Set<symbol>();
  /** The holds the waiting reads wait for: those taken when the first of them was asked. */
  private awaited = new Set<symbol>();
  private flushScheduled = false;

  /** Holds the reads asked for from now until the returned release is called. */
  hold(): () => void {
    const held = Symbol('hold');
    this.holds.add(held);
    return () => {
      this.holds.delete(held);
      if (this.awaited.delete(held) && this.awaited.size === 0) this.scheduleFlush();
    };
  }

  read(key: ItemKey): Promise<Item | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0 && !this.flushScheduled) {
        this.awaited = new Set(this.holds);
        if (this.awaited.size === 0) this.scheduleFlush();
      }
      const id = `${key.pk}\u0000${key.sk}`;
      const entry = this.waiting.get(id) ?? { key, readers: [] };
      entry.readers.push(resolve);
      this.waiting.set(id, entry);
      this.failures.push(reject);
    });
  }

  /** After the current turn, so that every read asked for in it goes in the same call. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.awaited = new Set();
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const entries = [...this.waiting.values()];
    const failures = this.failures;
    this.waiting = new Map();
    this.failures = [];
    try {
      const found = new Map<string, Item>();
      const items = await batchGetAll(
        entries.map((entry) => entry.key),
        { consistent: true },
      );
      for (const item of items) found.set(`${item.pk}\u0000${item.sk}`, item);
      for (const { key, readers } of entries) {
        for (const resolve of readers) resolve(found.get(`${key.pk}\u0000${key.sk}`));
      }
    } catch (error) {
      for (const reject of failures) reject(error);
    }
  }
}

/** A condition on gsi2sk, added to a gsi2 partition's key condition. */
export interface WorkRange {
  /** E.g. ` AND gsi2sk < :before`: starts with its AND. */
  condition: string;
  values: Record<string, string>;
}

/** Sort keys strictly below `bound`. */
export const workBefore = (bound: string): WorkRange => ({
  condition: ' AND gsi2sk < :before',
  values: { ':before': bound },
});

/** What to read of each item of a queue of work: a ProjectionExpression and its names. */
export interface WorkProjection {
  expression: string;
  names?: Record<string, string>;
}

/**
 * The first `limit` items of one gsi2 partition, oldest first, within `range` when given: how each
 * queue of work kept on gsi2 is read (overdue deliveries, stalled fan-outs, an endpoint's paused
 * and failed deliveries, endpoints to resume). One page: the caller takes the rest next time.
 */
export async function queryWork(
  partition: string,
  limit: number,
  range?: WorkRange,
  projection?: WorkProjection,
): Promise<Item[]> {
  return itemsOfEntries(await workEntries(partition, limit, range), projection);
}

/**
 * The first `limit` items, oldest first, of a queue of work spread over several gsi2 partitions
 * (shards, so that its writes do not all meet on one key): every partition read at once, the
 * entries merged by sort key, and their items read.
 */
export async function queryWorkShards(
  partitions: string[],
  limit: number,
  range?: WorkRange,
  projection?: WorkProjection,
): Promise<Item[]> {
  const pages = await Promise.all(
    partitions.map((partition) => workEntries(partition, limit, range)),
  );
  const entries = pages
    .flat()
    .sort((a, b) => (String(a.gsi2sk) < String(b.gsi2sk) ? -1 : 1))
    .slice(0, limit);
  return itemsOfEntries(entries, projection);
}

/**
 * The first `limit` entries of a gsi2 partition: their keys only. gsi2 projects no attributes
 * (table-definition.ts says why): its entries stay small however large the items they list.
 */
async function workEntries(partition: string, limit: number, range?: WorkRange) {
  const { Items } = await call('Query', {
    TableName: tableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: `gsi2pk = :pk${range?.condition ?? ''}`,
    ExpressionAttributeValues: { ':pk': partition, ...range?.values },
    Limit: limit,
  });
  return Items ?? [];
}

/**
 * The items of index entries, in the entries' order, by BatchGetItem (eventually consistent, as
 * the index is: every step taken on work is a conditional write that checks what it needs). An
 * item deleted since its entry was read, or moved to another partition, is left out.
 */
async function itemsOfEntries(entries: Item[], projection?: WorkProjection): Promise<Item[]> {
  if (entries.length === 0) return [];
  const found = await batchGetAll(
    entries.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })),
    projection === undefined
      ? {}
      : { projection: `pk, sk, gsi2pk, ${projection.expression}`, names: projection.names },
  );
  const byKey = new Map(found.map((item) => [`${item.pk}\u0000${item.sk}`, item]));
  return entries.flatMap((entry) => {
    const item = byKey.get(`${entry.pk}\u0000${entry.sk}`);
    return item !== undefined && item.gsi2pk === entry.gsi2pk ? [item] : [];
  });
}
