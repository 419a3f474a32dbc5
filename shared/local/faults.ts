import type { AccountCodeQueue } from '../domain/accounts/ports.js';
import type { InboundQueue } from '../domain/inbound/ports.js';
import type { Mailer, SmsSender } from '../domain/messages.js';
import type { DeliveryQueue, RetryScheduler } from '../domain/webhooks/ports.js';

/** The AWS services the local runtime stands in for, each of which `/_local/faults` can fail. */
export const standInServices = ['ses', 'sns', 'sqs', 'scheduler'] as const;
export type StandInService = (typeof standInServices)[number];

/** Calls made to one stand-in, and how many of them were failed on purpose. */
export interface CallTally {
  calls: number;
  failed: number;
}

/**
 * What the SDK throws for a service that is down: a named exception with a message of its own.
 * The message starts with `injectedFaultMarker`, so a test can hold that it never reaches a client.
 */
export class InjectedFault extends Error {
  readonly $fault = 'server';
  readonly $metadata = { httpStatusCode: 503 };

  constructor(service: StandInService) {
    super(`${injectedFaultMarker}: ${service} is unavailable (ServiceUnavailable, status 503)`);
    this.name = 'ServiceUnavailableException';
  }
}

export const injectedFaultMarker = 'Injected fault';

/**
 * Failure on demand for the local stand-ins of SES, SNS, SQS and EventBridge Scheduler
 * (`PUT /_local/faults`): while a service is failing, every call to its stand-in throws as the
 * SDK would, and nothing is sent. Every call is tallied (`GET /_local/faults`), so a test can
 * wait for a failure to have happened rather than sleep.
 */
export class FaultSwitch {
  private readonly failing = new Set<StandInService>();
  private readonly tallies = new Map<StandInService, CallTally>(
    standInServices.map((service) => [service, { calls: 0, failed: 0 }]),
  );

  set(service: StandInService, failing: boolean): void {
    if (failing) this.failing.add(service);
    else this.failing.delete(service);
  }

  report(): { failing: StandInService[]; calls: Record<StandInService, CallTally> } {
    return {
      failing: standInServices.filter((service) => this.failing.has(service)),
      calls: Object.fromEntries(
        standInServices.map((service) => [service, { ...this.tallies.get(service)! }]),
      ) as Record<StandInService, CallTally>,
    };
  }

  /** Runs one call to `service`'s stand-in, or throws InjectedFault while it is failing. */
  async call<T>(service: StandInService, work: () => Promise<T>): Promise<T> {
    const tally = this.tallies.get(service)!;
    tally.calls += 1;
    if (this.failing.has(service)) {
      tally.failed += 1;
      throw new InjectedFault(service);
    }
    return work();
  }

  mailer(inner: Mailer): Mailer {
    return { send: (message) => this.call('ses', () => inner.send(message)) };
  }

  smsSender(inner: SmsSender): SmsSender {
    return { send: (message) => this.call('sns', () => inner.send(message)) };
  }

  accountCodeQueue(inner: AccountCodeQueue): AccountCodeQueue {
    return { request: (work) => this.call('sqs', () => inner.request(work)) };
  }

  inboundQueue(inner: InboundQueue): InboundQueue {
    return {
      enqueue: (request) => this.call('sqs', () => inner.enqueue(request)),
      enqueueMany: (requests) => this.call('sqs', () => inner.enqueueMany(requests)),
    };
  }

  deliveryQueue(inner: DeliveryQueue): DeliveryQueue {
    return { enqueue: (messages) => this.call('sqs', () => inner.enqueue(messages)) };
  }

  retryScheduler(inner: RetryScheduler): RetryScheduler {
    return {
      wakeAt: (dueMinute) => this.call('scheduler', () => inner.wakeAt(dueMinute)),
    };
  }
}
