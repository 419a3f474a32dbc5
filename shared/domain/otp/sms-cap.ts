import { log } from '../../log.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';

/**
 * The service-wide bound on texts (SMS_MAX_PER_HOUR): at most `perHour` in one clock hour, all
 * numbers and purposes together. Per-number and per-client limits cannot bound SMS spend, because
 * an SMS pumper spreads its requests over many numbers and addresses; this can, whoever asks.
 */

/** Logged (warn) once per hour when the count reaches the alarm threshold: what the stack's alarm counts. */
export const smsCapNearMessage = 'service-wide SMS count reached its alarm threshold';

/** Logged (error) for every text refused because the hour's cap is reached. */
export const smsCapReachedMessage = 'service-wide SMS cap reached: text refused';

/** The share of the cap at which the warning is logged, so an alarm fires before texts stop. */
export const smsCapAlarmShare = 0.8;

/** Texts counted per clock hour, in one atomic counter. */
export interface SmsCounter {
  /**
   * Adds one text to the hour starting at `hourStart` (epoch s), unless `cap` are counted
   * already; answers the count including it, or undefined when refused (nothing counted).
   */
  take(hourStart: number, cap: number): Promise<number | undefined>;
  /** Takes one text back from the hour (a text that was not sent after all). */
  giveBack(hourStart: number): Promise<void>;
  /** The texts counted in the hour. */
  count(hourStart: number): Promise<number>;
}

export class SmsCap {
  constructor(
    private readonly counter: SmsCounter,
    private readonly clock: Clock,
    /** SMS_MAX_PER_HOUR. */
    readonly perHour: number,
  ) {}

  /**
   * Counts one text in the current hour and answers that hour (for `giveBack`). Throws
   * rate_limited when the cap is reached: one answer for every number, which tells nothing
   * about the target. One conditional write.
   */
  async take(): Promise<number> {
    const hourStart = this.hourStart();
    const count = await this.counter.take(hourStart, this.perHour);
    if (count === undefined) throw this.refusal(hourStart);
    if (count === Math.ceil(this.perHour * smsCapAlarmShare)) {
      log.warn(smsCapNearMessage, { count, perHour: this.perHour });
    }
    return hourStart;
  }

  /** Undoes a `take` whose text was not sent (the code was refused by its own limits). */
  giveBack(hourStart: number): Promise<void> {
    return this.counter.giveBack(hourStart);
  }

  /**
   * Throws the cap's refusal when the current hour is already spent, counting nothing: for a
   * request whose text, if any, is sent later by a worker. One read.
   */
  async refuseWhenSpent(): Promise<void> {
    const hourStart = this.hourStart();
    if ((await this.counter.count(hourStart)) >= this.perHour) throw this.refusal(hourStart);
  }

  private hourStart(): number {
    const now = Math.floor(this.clock.now() / 1000);
    return now - (now % 3600);
  }

  private refusal(hourStart: number): ServiceError {
    log.error(smsCapReachedMessage, { perHour: this.perHour });
    const now = this.clock.now();
    return new ServiceError(
      'rate_limited',
      'Text messages are paused for the rest of the hour; try again later',
      [],
      {
        retryAfterSeconds: Math.max(1, Math.ceil(((hourStart + 3600) * 1000 - now) / 1000)),
        limit: 'sms-hourly-cap',
      },
    );
  }
}
