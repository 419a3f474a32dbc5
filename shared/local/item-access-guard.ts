import { AsyncLocalStorage } from 'node:async_hooks';
import { aroundDynamoCalls } from '../adapters/dynamodb.js';
import { type ItemFamily, itemFamilyOf } from '../adapters/keys.js';
import { type IndexName, tableIndexes, tableKeys } from '../adapters/table-definition.js';
import type { Needs } from '../http/operation.js';
import { itemAccessesOf, type TablePartitionKeys } from './dynamodb-item-access.js';

interface GuardedScope {
  entry: string;
  families: ReadonlySet<ItemFamily>;
  readOnly: ReadonlySet<ItemFamily>;
}

/** What a role grants on a family it may only read (infra/service-function.ts, `bindTable`). */
const readActions = new Set(['GetItem', 'BatchGetItem', 'Query']);

const scopes = new AsyncLocalStorage<GuardedScope>();

const partitionKeys: TablePartitionKeys = {
  partitionKey: tableKeys.partitionKey,
  indexPartitionKeys: Object.fromEntries(
    tableIndexes.map((index) => [index.indexName, index.partitionKey]),
  ),
};

/**
 * Runs `handler` as the function of `entry`: allowed only the item families given, those of
 * `reads` for reading only.
 */
export function guardedHandler<TArgs extends unknown[], TResult>(
  entry: string,
  access: Pick<Needs, 'items' | 'reads'>,
  handler: (...args: TArgs) => Promise<TResult>,
): (...args: TArgs) => Promise<TResult> {
  const scope = {
    entry,
    families: new Set(access.items),
    readOnly: new Set(access.reads),
  };
  return (...args) => scopes.run(scope, () => handler(...args));
}

/**
 * Refuses what IAM would refuse on AWS: a call of a guarded handler to an item (or an index
 * partition) outside the families its routes declare. On AWS each function's role allows only
 * those (`dynamodb:LeadingKeys`); here every handler shares one client, so this middleware on its
 * stack asks the same question of every call, and names the declaration to fix.
 */
export function guardItemAccess(): void {
  aroundDynamoCalls(async ({ operation, input }, next) => {
    const scope = scopes.getStore();
    if (scope !== undefined) refuseOutsideScope(scope, operation, input);
    return next();
  });
}

function refuseOutsideScope(
  scope: GuardedScope,
  operation: string,
  input: Record<string, unknown>,
): void {
  for (const access of itemAccessesOf(operation, input, () => partitionKeys)) {
    if (access.leadingKeys === undefined) {
      throw new Error(`${scope.entry} called ${operation}, which no function is granted`);
    }
    for (const key of access.leadingKeys) {
      const family = itemFamilyOf(key, access.indexName as IndexName | undefined);
      if (family !== undefined && scope.readOnly.has(family)) {
        if (readActions.has(access.action)) continue;
        throw new Error(
          `${scope.entry} ${access.action} on ${key}: its routes may only read the item family ${family}`,
        );
      }
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
