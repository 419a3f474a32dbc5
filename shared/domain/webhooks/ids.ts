import { createHash, randomBytes } from 'node:crypto';

/** Random identifiers we issue: a type prefix and 20 base32 characters (100 bits). */
const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function randomId(prefix: string): string {
  const bytes = randomBytes(20);
  let id = prefix;
  for (const byte of bytes) id += alphabet[byte & 31];
  return id;
}

export const newEndpointId = (): string => randomId('whk_');
export const newEventId = (): string => randomId('evt_');

/**
 * A delivery's id follows from its event and endpoint, so fanning an event out twice (a replayed
 * publication, the sweeper finishing an interrupted fan-out) finds the deliveries it made before
 * instead of making a second set.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  const digest = createHash('sha256').update(`${eventId}\n${endpointId}`).digest();
  let id = 'dlv_';
  for (const byte of digest.subarray(0, 20)) id += alphabet[byte & 31];
  return id;
}
