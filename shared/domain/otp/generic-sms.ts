import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';

/**
 * One signed-in account's generic codes (sendOtp purpose generic): at most `numbersPerHour`
 * distinct numbers in a clock hour and `perDay` texts in a UTC day. Without it, one account could
 * spend the service's SMS_MAX_PER_HOUR alone by texting many numbers, and every sign-in text of
 * every user would then wait for the hour's end.
 */
export interface GenericSmsLimits {
  /** GENERIC_SMS_NUMBERS_PER_HOUR. @default 5 */
  numbersPerHour: number;
  /** GENERIC_SMS_PER_DAY. @default 20 */
  perDay: number;
}

/** Counted per account: texts of the day and the numbers of each hour, in one item per day. */
export interface GenericSmsCounter {
  /**
   * Counts one text to `phone` for the account in the day starting at `dayStart` and the hour
   * starting at `hourStart` (epoch s), unless the day has `perDay` texts or the hour
   * `numbersPerHour` other numbers. Answers which refused, or undefined when counted.
   */
  take(
    userId: string,
    phone: string,
    at: { dayStart: number; hourStart: number },
    limits: GenericSmsLimits,
  ): Promise<'numbers' | 'texts' | undefined>;
  /** Takes one text back from the day (a code that was not sent); the number stays counted. */
  giveBack(userId: string, dayStart: number): Promise<void>;
}

/** Where a text was counted, to give it back. */
export interface GenericSmsCounted {
  userId: string;
  dayStart: number;
}

export class GenericSmsAllowance {
  constructor(
    private readonly counter: GenericSmsCounter,
    private readonly clock: Clock,
    readonly limits: GenericSmsLimits,
  ) {}

  /**
   * Counts a generic text of `userId` to `phone`; throws rate_limited (with Retry-After: the hour's
   * end for numbers, the day's for texts) over either limit. One conditional write.
   */
  async take(userId: string, phone: string): Promise<GenericSmsCounted> {
    const now = Math.floor(this.clock.now() / 1000);
    const at = { dayStart: now - (now % 86_400), hourStart: now - (now % 3600) };
    const refused = await this.counter.take(userId, phone, at, this.limits);
    if (refused === undefined) return { userId, dayStart: at.dayStart };
    metrics.count('SmsRefused', { Limit: `generic-${refused}` });
    const [message, endsAt] =
      refused === 'numbers'
        ? [
            `One account may have codes texted to at most ${this.limits.numbersPerHour} numbers an hour`,
            at.hourStart + 3600,
          ]
        : [
            `One account may have at most ${this.limits.perDay} codes texted a day`,
            at.dayStart + 86_400,
          ];
    throw new ServiceError('rate_limited', message, [], {
      retryAfterSeconds: Math.max(1, endsAt - now),
      limit: `generic-sms-${refused}`,
    });
  }

  giveBack(counted: GenericSmsCounted): Promise<void> {
    return this.counter.giveBack(counted.userId, counted.dayStart);
  }
}
