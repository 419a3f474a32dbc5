import { createHash, timingSafeEqual } from 'node:crypto';
import { type ErrorCode, ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { Acknowledgement, AttemptOutcome, InboundAttempt, InboundCall } from './model.js';
import type { ReceiveDependencies } from './ports.js';
import { isObject, type JsonObject, type SourceRules } from './sources.js';

/** The longest `hub.challenge` echoed back (the OpenAPI document states it). */
export const maxChallengeLength = 1024;

/**
 * Receiving is only what must happen before the answer (senders give up after about 5 seconds):
 * verify the signature, dedupe with one conditional write that also makes the event durable,
 * hand it to processing, and record the attempt. Everything else happens in the worker.
 */
export async function receiveEvent(
  deps: ReceiveDependencies,
  rules: SourceRules,
  secrets: string[],
  call: InboundCall,
): Promise<Acknowledgement> {
  const check = rules.verify(call, secrets);
  if (!check.valid) throw new ServiceError('invalid_signature', check.reason);
  const body = parseObject(call.rawBody);
  const { eventId, type, route, senderEventId } = rules.identify(call, body);
  const now = deps.clock.now();
  const stored = await deps.events.record(
    {
      source: rules.source,
      eventId,
      type,
      route,
      receivedAt: call.receivedAt,
      rawBody: call.rawBody,
    },
    now,
  );
  const attempt = (outcome: AttemptOutcome, statusCode: number): InboundAttempt => ({
    ...attemptOf(deps, rules.source, call, outcome, statusCode),
    eventId,
    eventType: type,
    ...(senderEventId === undefined ? {} : { senderEventId }),
  });
  // A duplicate whose original never got processed (the hand-off failed, or its worker died) is
  // handed over again: the sender's retry is what repairs the gap between the write and the
  // queue. The worker's claim makes a second hand-off harmless.
  if (stored.created || stored.stalled) {
    try {
      await deps.queue.enqueue({ source: rules.source, eventId });
    } catch (error) {
      // Answered 500 so that the sender retries; the retry finds the event stalled and re-queues.
      await audit(deps, attempt('failed', 500));
      throw error;
    }
  }
  await audit(deps, attempt(stored.created ? 'accepted' : 'duplicate', 200));
  return { received: true, eventId, duplicate: !stored.created, route };
}

function parseObject(rawBody: Buffer): JsonObject {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ServiceError('invalid_request', 'The body must be JSON', [
      { field: 'body', message: 'is not valid JSON' },
    ]);
  }
  if (!isObject(body)) {
    throw new ServiceError('invalid_request', 'The body must be a JSON object', [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  }
  return body;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The messaging platform's subscription handshake: `hub.mode=subscribe` with the configured
 * verify token gets the challenge echoed back, anything else a 403. The token is compared in
 * constant time (as digests, so that lengths do not leak either).
 */
export async function verifySubscription(
  deps: Pick<ReceiveDependencies, 'attempts' | 'newId'>,
  verifyTokens: string[],
  call: InboundCall,
): Promise<string> {
  const mode = call.query['hub.mode'];
  const token = call.query['hub.verify_token'] ?? '';
  const challenge = call.query['hub.challenge'];
  const given = sha256(token);
  const tokenMatches = verifyTokens
    .map((expected) => timingSafeEqual(sha256(expected), given))
    .includes(true);
  if (mode !== 'subscribe' || !tokenMatches) {
    throw new ServiceError('forbidden', 'The verification request is not valid for this endpoint');
  }
  if (challenge === undefined || challenge === '') {
    throw new ServiceError('invalid_request', 'hub.challenge is required', [
      { field: 'hub.challenge', message: 'is required' },
    ]);
  }
  // The platform's challenges are short numbers; the echo is bounded as the document says.
  if (challenge.length > maxChallengeLength) {
    throw new ServiceError('invalid_request', 'hub.challenge is too long', [
      { field: 'hub.challenge', message: `must be at most ${maxChallengeLength} characters` },
    ]);
  }
  await audit(deps, attemptOf(deps, 'messaging', call, 'verified', 200));
  return challenge;
}

/** The audit outcome of a refused call, by the error it was refused with. */
const refusalOutcomes: Partial<Record<ErrorCode, AttemptOutcome>> = {
  invalid_signature: 'invalid_signature',
  invalid_request: 'malformed',
  payload_too_large: 'too_large',
  not_found: 'wrong_method',
  forbidden: 'forbidden',
};

/** Records a call that was refused with a 4xx (or failed), so the audit trail has every call. */
export async function recordRefusal(
  deps: Pick<ReceiveDependencies, 'attempts' | 'newId'>,
  source: InboundAttempt['source'],
  call: InboundCall,
  error: ServiceError,
  statusCode: number,
): Promise<void> {
  await audit(deps, {
    ...attemptOf(deps, source, call, refusalOutcomes[error.code] ?? 'failed', statusCode),
    errorCode: error.code,
  });
}

/** Every call is audited once, and counted once by source and outcome (InboundEvents). */
async function audit(
  deps: Pick<ReceiveDependencies, 'attempts'>,
  attempt: InboundAttempt,
): Promise<void> {
  metrics.count('InboundEvents', { Source: attempt.source, Outcome: attempt.outcome });
  await deps.attempts.record(attempt);
}

function attemptOf(
  deps: Pick<ReceiveDependencies, 'newId'>,
  source: InboundAttempt['source'],
  call: InboundCall,
  outcome: AttemptOutcome,
  statusCode: number,
): InboundAttempt {
  return {
    id: deps.newId(),
    source,
    endpoint: call.endpoint,
    receivedAt: call.receivedAt,
    outcome,
    statusCode,
    requestId: call.requestId,
    sourceIp: call.sourceIp,
  };
}
