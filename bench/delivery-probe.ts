/**
 * Loaded (`--import`) into the service process that bench/delivery.ts starts, and driven from
 * there over the IPC channel: counts the service's DynamoDB calls and item writes, and profiles
 * its CPU, only over the phases the bench asks for. Nothing of it is in the service's code.
 */

import { Profiler, ProfileTally } from './cpu-profile.js';
import { DynamoCallCounter, total } from './dynamo-counter.js';

export type ProbeRequest =
  | { ask: 'count' }
  | { ask: 'counted' }
  | { ask: 'profile' }
  | { ask: 'profiled' };

let counter: DynamoCallCounter | undefined;
let profiler: Profiler | undefined;

async function answer(request: ProbeRequest): Promise<unknown> {
  switch (request.ask) {
    case 'count': {
      // Installed once the runtime runs: its client then points at its own DynamoDB Local.
      if (counter === undefined) {
        counter = new DynamoCallCounter();
        counter.install();
      }
      counter.reset();
      return {};
    }
    case 'counted':
      return counter === undefined
        ? {}
        : {
            calls: total(counter.snapshot()),
            itemWrites: counter.itemWrites,
            mix: counter.snapshot(),
          };
    case 'profile':
      profiler = new Profiler();
      await profiler.start();
      return {};
    case 'profiled': {
      const tally = new ProfileTally();
      if (profiler !== undefined) tally.add(await profiler.stop());
      profiler = undefined;
      return tally.summary();
    }
  }
}

process.on('message', (request: ProbeRequest) => {
  void answer(request).then(
    (reply) => process.send?.({ ask: request.ask, reply }),
    (error: unknown) => process.send?.({ ask: request.ask, error: String(error) }),
  );
});
