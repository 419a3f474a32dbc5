import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  aroundDynamoCalls,
  batchGetAll,
  type DynamoClients,
  type DynamoMiddleware,
  dynamoClients,
  dynamoInUse,
  putIfAbsent,
  putItems,
  updateIf,
  useDynamo,
} from '../../shared/adapters/dynamodb.js';
import { useFreshTable } from '../support/table.js';

let table = '';

beforeAll(async () => {
  table = await useFreshTable();
});

/**
 * A DynamoDB that throttles the first `throttled` batch calls of `operation`: it takes only the
 * first request (or key) of each and hands the rest back unprocessed, as DynamoDB does.
 */
function throttlingBatches(operation: 'BatchWriteItem' | 'BatchGetItem', throttled: number) {
  const client = dynamoClients({ endpoint: inject('dynamoEndpoint') });
  const calls: number[] = [];
  const middleware: DynamoMiddleware = async (call, next) => {
    if (call.operation !== operation) return next();
    const requests = call.input.RequestItems as Record<string, unknown>;
    const sent = operation === 'BatchWriteItem' ? (requests[table] as unknown[]) : undefined;
    const keys =
      operation === 'BatchGetItem' ? (requests[table] as { Keys: unknown[] }) : undefined;
    calls.push(sent?.length ?? keys?.Keys.length ?? 0);
    if (calls.length > throttled) return next();
    if (sent !== undefined) {
      const rest = sent.splice(1);
      return { ...((await next()) as object), UnprocessedItems: { [table]: rest } };
    }
    const rest = keys!.Keys.splice(1);
    const output = (await next()) as object;
    return { ...output, UnprocessedKeys: { [table]: { ...keys, Keys: rest } } };
  };
  aroundDynamoCalls(middleware, client);
  return { client, calls };
}

const itemsOf = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    pk: `KIT#${randomUUID()}`,
    sk: String(index),
    value: index,
  }));

async function withClient<T>(client: DynamoClients, work: () => Promise<T>): Promise<T> {
  const local = dynamoInUse();
  useDynamo(client);
  try {
    return await work();
  } finally {
    useDynamo(local);
  }
}

describe('the DynamoDB kit', () => {
  it('writes every item of a batch DynamoDB throttles, resending what it left unprocessed', async () => {
    const items = itemsOf(30);
    const { client, calls } = throttlingBatches('BatchWriteItem', 3);

    await withClient(client, () => putItems(items));

    // 25 and 5 at first (DynamoDB's limit), then what each left, until nothing is left.
    expect(calls.slice(0, 2).sort((a, b) => a - b)).toEqual([5, 25]);
    const stored = await batchGetAll(
      items.map(({ pk, sk }) => ({ pk, sk })),
      { consistent: true },
    );
    expect(stored).toHaveLength(30);
  });

  it('reads every key of a batch DynamoDB throttles, asking again for what it left', async () => {
    const items = itemsOf(120);
    await putItems(items);
    const { client, calls } = throttlingBatches('BatchGetItem', 2);

    const found = await withClient(client, () =>
      batchGetAll(
        items.map(({ pk, sk }) => ({ pk, sk })),
        { consistent: true },
      ),
    );

    expect(calls.slice(0, 2).sort((a, b) => a - b)).toEqual([20, 100]);
    expect(found.map((item) => item.value).sort((a, b) => Number(a) - Number(b))).toEqual(
      items.map((item) => item.value),
    );
  });

  it('answers a failed condition with the item as it was, instead of throwing', async () => {
    const [item] = itemsOf(1);
    expect(await putIfAbsent(item!)).toBe(true);
    expect(await putIfAbsent({ ...item!, value: 2 })).toBe(false);

    const setValue = (
      expected: number,
      answer: Pick<
        Parameters<typeof updateIf>[0],
        'ReturnValues' | 'ReturnValuesOnConditionCheckFailure'
      >,
    ) =>
      updateIf({
        ...answer,
        Key: { pk: item!.pk, sk: item!.sk },
        UpdateExpression: 'SET #value = :next',
        ConditionExpression: '#value = :expected',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':next': 3, ':expected': expected },
      });
    const refused = await setValue(2, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(refused).toEqual({ ok: false, item });
    const done = await setValue(0, { ReturnValues: 'ALL_NEW' });
    expect(done).toEqual({ ok: true, attributes: { ...item, value: 3 } });
  });
});
