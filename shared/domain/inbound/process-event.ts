import { ServiceError } from '../errors.js';
import { isObject, type JsonObject } from './json.js';
import { messagingContentOf } from './messaging-events.js';
import type { InboundEvent, ProcessingRequest } from './model.js';
import { paymentEventOf } from './payment-events.js';
import type { ProcessDependencies } from './ports.js';
import { subscriptionUpdateOf } from './subscription-events.js';

/**
 * How long a worker holds an event it claimed: longer than the worker's 30-second timeout, so two
 * workers never act on the same event at once, and shorter than the queue's visibility timeout,
 * so a redelivered message finds the lease of a crashed worker expired.
 */
export const processingLeaseMs = 60_000;

/**
 * - processed / failed: done (failed = could never succeed, e.g. a conflicting publication);
 * - skipped: nothing to do (already processed, or the record expired);
 * - retry: another worker holds the event right now; ask the queue for the message again later.
 */
export type ProcessOutcome = 'processed' | 'failed' | 'skipped' | 'retry';

/**
 * Acts on one accepted event exactly once: a conditional claim (received → processing) lets one
 * worker through however many copies of the message arrive, and the effects are idempotent in
 * themselves (publication keyed by the inbound event id, subscription state ordered by event
 * time), so even a worker that dies after acting and is retried does no harm.
 */
export async function processEvent(
  deps: ProcessDependencies,
  request: ProcessingRequest,
): Promise<ProcessOutcome> {
  const now = deps.clock.now();
  const claim = await deps.events.claim(request, now, now + processingLeaseMs);
  if (!claim.claimed) return claim.reason === 'busy' ? 'retry' : 'skipped';
  let result: string;
  try {
    result = await act(deps, claim.event);
  } catch (error) {
    if (error instanceof ServiceError) {
      await deps.events.finish(
        request,
        'failed',
        `${error.code}: ${error.message}`,
        deps.clock.now(),
      );
      return 'failed';
    }
    // Give the event back so the queue's retry can claim it at once; if even that fails, the
    // lease simply runs out first.
    await deps.events.release(request).catch(() => undefined);
    throw error;
  }
  await deps.events.finish(request, 'processed', result, deps.clock.now());
  return 'processed';
}

/** What the event means for us; returns a short note of what was done, kept on the record. */
async function act(deps: ProcessDependencies, event: InboundEvent): Promise<string> {
  const body = parseStored(event.rawBody);
  if (event.source === 'messaging') {
    const { messages, statuses } = messagingContentOf(body);
    await deps.messaging.save(messages, statuses);
    return `recorded ${messages.length} message(s) and ${statuses.length} status(es)`;
  }
  if (event.route === 'subscription') {
    const mapping = subscriptionUpdateOf(event.source, event.eventId, event.type, body);
    if (mapping.kind === 'unusable') return `ignored: ${mapping.reason}`;
    const applied = await deps.subscriptions.apply(mapping.update);
    return applied
      ? `subscription ${mapping.update.subscriptionId} updated`
      : `subscription ${mapping.update.subscriptionId} already has newer state`;
  }
  const payment = paymentEventOf(event.source, event.type, body);
  if (payment.kind === 'other') return `ignored: no handling for ${event.type}`;
  if (payment.kind === 'unusable') return `ignored: ${payment.reason}`;
  await deps.publish({
    ...payment.event,
    // A retried worker publishes the same event again: the key makes that a no-op.
    idempotencyKey: `${event.source}:${event.eventId}`,
  });
  return `published ${payment.event.type}`;
}

function parseStored(rawBody: Buffer): JsonObject {
  // Verified and parsed once already at receipt; a stored body is always a JSON object.
  const body: unknown = JSON.parse(rawBody.toString('utf8'));
  return isObject(body) ? body : {};
}
