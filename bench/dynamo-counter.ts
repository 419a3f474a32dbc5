import { aroundDynamoCalls, type DynamoClients } from '../shared/adapters/dynamodb.js';

/** Calls the client made, by command name (GetItem, TransactWriteItems, …). */
export type CallCounts = Record<string, number>;

/**
 * Counts DynamoDB calls at the client, from the outside: a middleware around the shared clients
 * stack sees every call, whatever repository made it. Retries do not count twice: the middleware
 * runs in the stack's first step, around the retries.
 */
export class DynamoCallCounter {
  private counts: CallCounts = {};
  private inFlight = 0;
  private lastActivity = performance.now();
  /** Calls left out of the counts (periodic background work no request caused). */
  ignored = 0;
  /** Items the counted calls wrote (a batch or a transaction writes several in one call). */
  itemWrites = 0;

  /**
   * @param ignore picks calls no request makes, e.g. the local runtime's sweeper polling its
   *   index every few seconds: counted apart, so they do not land on whichever request was running.
   */
  constructor(private readonly ignore: (command: string, input: object) => boolean = () => false) {}

  install(clients?: DynamoClients): void {
    aroundDynamoCalls(async ({ operation, input }, next) => {
      if (this.ignore(operation, input)) {
        this.ignored += 1;
        return next();
      }
      this.counts[operation] = (this.counts[operation] ?? 0) + 1;
      this.itemWrites += itemWritesOf(operation, input);
      this.inFlight += 1;
      this.lastActivity = performance.now();
      try {
        return await next();
      } finally {
        this.inFlight -= 1;
        this.lastActivity = performance.now();
      }
    }, clients);
  }

  snapshot(): CallCounts {
    return { ...this.counts };
  }

  /** Starts the counts again from nothing. */
  reset(): void {
    this.counts = {};
    this.itemWrites = 0;
    this.ignored = 0;
  }

  /**
   * Resolves once no call has been in flight or started for `quietMs`: work a handler left
   * running after its response (an in-process queue consumer) then belongs to that request.
   * Gives up after `limitMs`, so that a periodic poller cannot stall the bench.
   */
  async settle(quietMs = 15, limitMs = 500): Promise<void> {
    const deadline = performance.now() + limitMs;
    while (performance.now() < deadline) {
      if (this.inFlight === 0 && performance.now() - this.lastActivity >= quietMs) return;
      await new Promise((wait) => setTimeout(wait, quietMs));
    }
  }
}

/** The items one call writes. */
function itemWritesOf(operation: string, input: object): number {
  if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(operation)) return 1;
  if (operation === 'BatchWriteItem' && 'RequestItems' in input) {
    return Object.values(input.RequestItems as Record<string, unknown[]>).reduce(
      (sum, writes) => sum + writes.length,
      0,
    );
  }
  if (operation === 'TransactWriteItems' && 'TransactItems' in input) {
    return (input.TransactItems as object[]).filter((item) => !('ConditionCheck' in item)).length;
  }
  return 0;
}

export const total = (counts: CallCounts): number =>
  Object.values(counts).reduce((sum, n) => sum + n, 0);

/** What happened between two snapshots. */
export function difference(after: CallCounts, before: CallCounts): CallCounts {
  const result: CallCounts = {};
  for (const [name, n] of Object.entries(after)) {
    const delta = n - (before[name] ?? 0);
    if (delta > 0) result[name] = delta;
  }
  return result;
}

/** "Query 1 + TransactWriteItems 1" style, per request on average. */
export function describeMix(counts: CallCounts, requests: number): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name} ${Math.round((n / requests) * 100) / 100}`)
    .join(' + ');
}
