import { epochSeconds } from '../domain/clock.js';
import type { LadderMinuteRepository } from '../domain/webhooks/ports.js';
import { deleteIf, putIfAbsent } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** A claimed minute's mark outlives the minute by a day; DynamoDB's TTL then removes it. */
const markKeptSeconds = 24 * 60 * 60;

/** Minutes this process has claimed or seen claimed: a warm worker asks DynamoDB once a minute. */
const knownMinutes = new Set<number>();

/**
 * Minutes whose wake-up exists, each marked by one conditional put
 * (`LADDER_MINUTE#<minute>`): of every worker whose attempts fall due in a minute, one puts the
 * mark and creates the schedule. A process remembers the minutes it met, so the mark of a minute
 * takes one write per warm worker at most (never one per delivery).
 */
export const dynamoLadderMinuteRepository: LadderMinuteRepository = {
  async claim(dueMinute) {
    if (knownMinutes.has(dueMinute)) return false;
    const claimed = await putIfAbsent({
      ...keys.ladderMinute(dueMinute),
      kind: 'ladder_minute',
      [ttlAttribute]: epochSeconds(dueMinute) + markKeptSeconds,
    });
    knownMinutes.add(dueMinute);
    return claimed;
  },

  async release(dueMinute) {
    knownMinutes.delete(dueMinute);
    await deleteIf({ Key: keys.ladderMinute(dueMinute) });
  },
};
