import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpRequest } from '@smithy/core/protocols';
import { type ItemFamily, itemFamilyOf } from '../adapters/keys.js';
import { type IndexName, tableIndexes, tableKeys } from '../adapters/table-definition.js';
import { itemAccessesOf, type TablePartitionKeys } from './dynamodb-item-access.js';

interface GuardedScope {
  entry: string;
  families: ReadonlySet<ItemFamily>;
}

const scopes = new AsyncLocalStorage<GuardedScope>();

const partitionKeys: TablePartitionKeys = {
  partitionKey: tableKeys.partitionKey,
  indexPartitionKeys: Object.fromEntries(
    tableIndexes.map((index) => [index.indexName, index.partitionKey]),
  ),
};

/** Runs `handler` as the function of `entry`: allowed only the item families given. */
export function guardedHandler<TArgs extends unknown[], TResult>(
  entry: string,
  families: readonly ItemFamily[],
  handler: (...args: TArgs) => Promise<TResult>,
): (...args: TArgs) => Promise<TResult> {
  const scope = { entry, families: new Set(families) };
  return (...args) => scopes.run(scope, () => handler(...args));
}

/**
 * Refuses what IAM would refuse on AWS: a call of a guarded handler to an item (or an index
 * partition) outside the families its routes declare. On AWS each function's role allows only
 * those (`dynamodb:LeadingKeys`); here every handler shares one client, so this middleware asks
 * the same question of every request, and names the declaration to fix. It reads the request as
 * the SDK built it (operation from `X-Amz-Target`, keys in the wire format of its body), once per
 * call: the build step comes before the retries.
 */
export function guardItemAccess(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => (args) => {
      const scope = scopes.getStore();
      if (scope !== undefined && HttpRequest.isInstance(args.request)) {
        const operation = String(args.request.headers['x-amz-target']).split('.')[1] ?? '';
        const wire = JSON.parse(textOf(args.request.body)) as Record<string, unknown>;
        refuseOutsideScope(scope, operation, wire);
      }
      return next(args);
    },
    { step: 'build', name: 'itemAccessGuard' },
  );
}

/** A request body as the SDK built it (bytes, for the JSON protocol), as text. */
const textOf = (body: unknown): string =>
  body instanceof Uint8Array
    ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
    : String(body);

function refuseOutsideScope(
  scope: GuardedScope,
  operation: string,
  wire: Record<string, unknown>,
): void {
  for (const access of itemAccessesOf(operation, wire, () => partitionKeys)) {
    if (access.leadingKeys === undefined) {
      throw new Error(`${scope.entry} called ${operation}, which no function is granted`);
    }
    for (const key of access.leadingKeys) {
      const family = itemFamilyOf(key, access.indexName as IndexName | undefined);
      if (family === undefined || !scope.families.has(family)) {
        throw new Error(
          `${scope.entry} ${access.action} on ${key}${access.indexName ? ` (${access.indexName})` : ''}: ` +
            (family === undefined
              ? 'no item family holds this key (add it to itemFamilies in shared/adapters/keys.ts)'
              : `its routes do not declare the item family ${family} (needs.items in their definitions)`),
        );
      }
    }
  }
}
