import { log } from '../../log.js';
import { ServiceError } from '../errors.js';

/**
 * Sends a code where the answer must not depend on whether it went out: a cooldown or hourly cap
 * on one address would otherwise tell an existing account from a fresh one.
 */
export async function sendWithoutTelling(send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (
      error instanceof ServiceError &&
      (error.code === 'rate_limited' || error.code === 'too_many_attempts')
    ) {
      log.info('code not sent: limit reached', { code: error.code });
      return;
    }
    throw error;
  }
}
