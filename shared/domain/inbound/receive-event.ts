import { createHash, timingSafeEqual } from 'node:crypto';
import { log } from '../../log.js';
import { type ErrorCode, Refusal, ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import { isObject, type JsonObject } from './json.js';
import {
  type Acknowledgement,
  type AttemptOutcome,
  dedupeWindowSeconds,
  type InboundAttempt,
  type InboundCall,
  type InboundSource,
} from './model.js';
import type { ReceiveDependencies, RecordEventResult } from './ports.js';
import type { CreationTime, EventIdentity, SourceRules } from './sources.js';

/** The longest `hub.challenge` echoed back (the OpenAPI document states it). */
export const maxChallengeLength = 1024;

/**
 * Receiving is only what must happen before the answer (senders give up after about 5 seconds):
 * verify the signature, dedupe with one conditional write that also makes the event durable,
 * hand it to processing, and record the attempt. Everything else happens in the worker.
 *
 * A call whose signature does not verify proves nothing about its sender: it is counted
 * (InboundEvents) and only a sample of such calls is stored (`UnprovenSample`). Once the
 * signature verifies, every outcome is audited — a body that is not an event, one created longer
 * ago than the dedupe window (`too_old`: its record may be gone, so a replay could not be told
 * from a new event), one storage cannot keep (`too_large`) — with the event's id and type when
 * they are known.
 */
export async function receiveEvent(
  deps: ReceiveDependencies,
  rules: SourceRules,
  secrets: string[],
  call: InboundCall,
): Promise<Acknowledgement> {
  const check = rules.verify(call, secrets);
  if (!check.valid) {
    const refusal = new ServiceError('invalid_signature', check.reason);
    await recordUnproven(deps, rules.source, call, 'invalid_signature');
    throw refusal;
  }
  const refuse = async (outcome: SignedRefusal, error: Error, known: Known = {}) => {
    await auditRefusal(deps, { ...attemptOf(deps, rules.source, call, outcome), ...known });
    return error;
  };
  let body: JsonObject;
  let identity: EventIdentity;
  let created: CreationTime | undefined;
  try {
    body = parseObject(call.rawBody);
    identity = rules.identify(call, body);
    created = rules.createdAt(body);
  } catch (error) {
    throw error instanceof ServiceError ? await refuse('malformed', error) : error;
  }
  const { eventId, type, route, senderEventId } = identity;
  const known: Known = {
    eventId: eventId.slice(0, maxAuditedLength),
    eventType: type.slice(0, maxAuditedLength),
    ...(senderEventId === undefined ? {} : { senderEventId }),
  };
  if (created !== undefined && created.seconds * 1000 <= call.receivedAt - dedupeWindowMs) {
    throw await refuse('too_old', tooOld(created), known);
  }
  const now = deps.clock.now();
  let stored: RecordEventResult;
  try {
    stored = await deps.events.record(
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
  } catch (error) {
    // A body storage cannot keep (DynamoDB items stop at 400 KB, keys at 2 KB): a 413.
    throw error instanceof Refusal && error.reason === 'eventTooLarge'
      ? await refuse('too_large', error, known)
      : error;
  }
  const attempt = (outcome: AttemptOutcome): InboundAttempt => ({
    ...attemptOf(deps, rules.source, call, outcome),
    ...known,
  });
  // A duplicate whose original never got processed (the hand-off failed, or its worker died) is
  // handed over again: the sender's retry is what repairs the gap between the write and the
  // queue. The worker's claim makes a second hand-off harmless.
  if (stored.created || stored.stalled) {
    try {
      await deps.queue.enqueue({ source: rules.source, eventId });
    } catch (error) {
      // Answered 500 so that the sender retries; the retry finds the event stalled and re-queues.
      await audit(deps, attempt('failed'));
      throw error;
    }
  }
  await audit(deps, attempt(stored.created ? 'accepted' : 'duplicate'));
  return { received: true, eventId, duplicate: !stored.created, route };
}

/** The dedupe window in milliseconds: an event created earlier than this before now is refused. */
const dedupeWindowMs = dedupeWindowSeconds * 1000;

/** The refusal of an event created longer ago than the dedupe window, naming the field. */
const tooOld = (created: CreationTime) =>
  new ServiceError(
    'invalid_request',
    `The event was created more than ${dedupeWindowSeconds / 86_400} days ago: too old to tell from a replay`,
    [
      {
        field: created.field,
        message: `is more than ${dedupeWindowSeconds / 86_400} days ago`,
      },
    ],
  );

/** The longest event id or type kept on an audit record (a sender's text, bounded in size). */
const maxAuditedLength = 256;

/** What an audit record says of the event, once its body was understood. */
type Known = Partial<Pick<InboundAttempt, 'eventId' | 'eventType' | 'senderEventId'>>;

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
  deps: Pick<ReceiveDependencies, 'attempts' | 'newId' | 'unprovenSample'>,
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
    await recordUnproven(deps, 'messaging', call, 'forbidden');
    throw new ServiceError('forbidden', 'The verification request is not valid for this endpoint');
  }
  const malformed = async (message: string, detail: string) => {
    await auditRefusal(deps, attemptOf(deps, 'messaging', call, 'malformed'));
    return new ServiceError('invalid_request', message, [
      { field: 'hub.challenge', message: detail },
    ]);
  };
  if (challenge === undefined || challenge === '') {
    throw await malformed('hub.challenge is required', 'is required');
  }
  // The platform's challenges are short numbers; the echo is bounded as the document says.
  if (challenge.length > maxChallengeLength) {
    throw await malformed(
      'hub.challenge is too long',
      `must be at most ${maxChallengeLength} characters`,
    );
  }
  await audit(deps, attemptOf(deps, 'messaging', call, 'verified'));
  return challenge;
}

/** Outcomes of a refusal after the sender was proven (signature or verify token). */
type SignedRefusal = 'malformed' | 'too_old' | 'too_large';

/** Outcomes of a refusal before anything proved the sender. */
export type UnprovenRefusal = 'invalid_signature' | 'forbidden' | 'wrong_method' | 'too_large';

/**
 * What each outcome was answered: its status and, for a refusal, its error code (the audit record
 * keeps both). The receivers' HTTP answers are made from the same errors (shared/http).
 */
const answered: Record<AttemptOutcome, { status: number; code?: ErrorCode }> = {
  accepted: { status: 200 },
  duplicate: { status: 200 },
  verified: { status: 200 },
  invalid_signature: { status: 401, code: 'invalid_signature' },
  malformed: { status: 400, code: 'invalid_request' },
  too_old: { status: 400, code: 'invalid_request' },
  too_large: { status: 413, code: 'payload_too_large' },
  wrong_method: { status: 404, code: 'not_found' },
  forbidden: { status: 403, code: 'forbidden' },
  failed: { status: 500 },
};

/**
 * Records a call refused before anything proved its sender (no valid signature, a handshake with
 * a wrong token, a method or a size the receiver refuses outright): counted always
 * (InboundEvents), stored only within the sample (`UnprovenSample`), so a flood of unsigned calls
 * costs no write per call. A failing write is logged, never turned into a 5xx.
 */
export async function recordUnproven(
  deps: Pick<ReceiveDependencies, 'attempts' | 'newId' | 'unprovenSample'>,
  source: InboundSource,
  call: InboundCall,
  outcome: UnprovenRefusal,
): Promise<void> {
  const attempt = attemptOf(deps, source, call, outcome);
  if (deps.unprovenSample.admit(source, call.receivedAt)) {
    await auditRefusal(deps, attempt);
  } else {
    count(attempt);
  }
}

/** Counts the call once by source and outcome (InboundEvents). */
const count = (attempt: InboundAttempt) =>
  metrics.count('InboundEvents', { Source: attempt.source, Outcome: attempt.outcome });

/** Every stored call is counted once by source and outcome (InboundEvents). */
async function audit(
  deps: Pick<ReceiveDependencies, 'attempts'>,
  attempt: InboundAttempt,
): Promise<void> {
  count(attempt);
  await deps.attempts.record(attempt);
}

/** Audits a refusal; a failing audit write is logged and never turns the 4xx into a 5xx. */
async function auditRefusal(
  deps: Pick<ReceiveDependencies, 'attempts'>,
  attempt: InboundAttempt,
): Promise<void> {
  try {
    await audit(deps, attempt);
  } catch (error) {
    log.error('could not record a refused inbound webhook', { error });
  }
}

function attemptOf(
  deps: Pick<ReceiveDependencies, 'newId'>,
  source: InboundSource,
  call: InboundCall,
  outcome: AttemptOutcome,
): InboundAttempt {
  const { status, code } = answered[outcome];
  return {
    id: deps.newId(),
    source,
    endpoint: call.endpoint,
    receivedAt: call.receivedAt,
    outcome,
    statusCode: status,
    ...(code === undefined ? {} : { errorCode: code }),
    requestId: call.requestId,
    sourceIp: call.sourceIp,
  };
}
