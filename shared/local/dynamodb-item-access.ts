/**
 * What IAM sees of one DynamoDB request: each action it authorises, on which table or index,
 * with which `dynamodb:LeadingKeys` (the partition key values the request touches — of the
 * index, for a query on one). A transaction is authorised item by item, each as the action that
 * item performs (Put as PutItem, ConditionCheck as ConditionCheckItem, …); a batch as itself,
 * with the keys of all its items.
 *
 * Used by the local runtime, which holds each function to the item families its routes
 * declare, and by the artifact test, which holds the synthesized bundles to their IAM policies.
 */

export interface ItemAccess {
  /** The IAM action, without the `dynamodb:` prefix. */
  action: string;
  tableName: string;
  indexName?: string;
  /** Undefined for an action that names no key (Scan, DescribeTable): LeadingKeys cannot guard it. */
  leadingKeys?: string[];
}

/** A table's partition key attribute, and each index's. */
export interface TablePartitionKeys {
  partitionKey: string;
  indexPartitionKeys: Record<string, string>;
}

/** A key attribute's value: in the wire format (`{S: …}`), or native, as the DocumentClient takes it. */
type AttributeValue = { S?: string; N?: string; B?: string } | string | number;
type Key = Record<string, AttributeValue>;

const textOf = (value: AttributeValue | undefined): string | undefined =>
  typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : (value?.S ?? value?.N ?? value?.B);

const transactionActions: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

function partitionOf(key: Key, attribute: string): string {
  const text = textOf(key[attribute]);
  if (text === undefined) throw new Error(`A key without its partition key ${attribute}`);
  return text;
}

/** The partition a Query reads: the value its key condition sets `attribute` equal to. */
function queriedPartition(input: Record<string, unknown>, attribute: string): string {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Key;
  for (const clause of String(input.KeyConditionExpression).split(/\s+AND\s+/i)) {
    const equality = /^\s*\(?\s*([#\w.]+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(clause);
    if (equality === null) continue;
    const name = names[equality[1]!] ?? equality[1];
    const value = textOf(values[equality[2]!]);
    if (name === attribute && value !== undefined) return value;
  }
  throw new Error(`No equality on ${attribute} in ${String(input.KeyConditionExpression)}`);
}

/**
 * The accesses of one request, from its operation name (`PutItem`) and its input: in the wire
 * format (attribute values as `{S: …}`, what the artifact test's stand-in receives) or as the
 * DocumentClient takes it (native values, what the local runtime's guard sees).
 */
export function itemAccessesOf(
  operation: string,
  input: Record<string, unknown>,
  keysOf: (tableName: string) => TablePartitionKeys,
): ItemAccess[] {
  const tableName = String(input.TableName);
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [
        {
          action: operation,
          tableName,
          leadingKeys: [partitionOf(input.Key as Key, keysOf(tableName).partitionKey)],
        },
      ];
    case 'PutItem':
      return [
        {
          action: operation,
          tableName,
          leadingKeys: [partitionOf(input.Item as Key, keysOf(tableName).partitionKey)],
        },
      ];
    case 'Query': {
      const indexName = input.IndexName as string | undefined;
      const table = keysOf(tableName);
      const attribute =
        indexName === undefined ? table.partitionKey : table.indexPartitionKeys[indexName];
      if (attribute === undefined) throw new Error(`No index ${indexName} on ${tableName}`);
      return [
        {
          action: 'Query',
          tableName,
          ...(indexName === undefined ? {} : { indexName }),
          leadingKeys: [queriedPartition(input, attribute)],
        },
      ];
    }
    case 'BatchGetItem':
      return Object.entries(input.RequestItems as Record<string, { Keys: Key[] }>).map(
        ([name, { Keys }]) => ({
          action: operation,
          tableName: name,
          leadingKeys: Keys.map((key) => partitionOf(key, keysOf(name).partitionKey)),
        }),
      );
    case 'BatchWriteItem':
      return Object.entries(
        input.RequestItems as Record<
          string,
          { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]
        >,
      ).map(([name, writes]) => ({
        action: operation,
        tableName: name,
        leadingKeys: writes.map((write) =>
          partitionOf(
            write.PutRequest?.Item ?? write.DeleteRequest?.Key ?? {},
            keysOf(name).partitionKey,
          ),
        ),
      }));
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Record<string, { TableName: string; Key?: Key; Item?: Key }>[])
        .map((transactItem) => Object.entries(transactItem)[0]!)
        .map(([kind, part]) => ({
          action: transactionActions[kind] ?? kind,
          tableName: part.TableName,
          leadingKeys: [
            partitionOf(part.Key ?? part.Item ?? {}, keysOf(part.TableName).partitionKey),
          ],
        }));
    default:
      return [{ action: operation, tableName }];
  }
}
