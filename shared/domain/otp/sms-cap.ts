import { log } from '../../log.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { OtpPurpose } from './purposes.js';

/**
 * The service-wide bound on texts (SMS_MAX_PER_HOUR): at most `perHour` in one clock hour, all
 * numbers and purposes together. Per-number and per-client limits cannot bound SMS spend, because
 * an SMS pumper spreads its requests over many numbers and addresses; this can, whoever asks.
 * Generic codes (a signed-in caller's own checks) may take only the hour's first share: the last
 * `reservedPercent` is kept for sign-in and verification texts, so generic use never starves them.
 */

/** Logged (warn) when a shard's count reaches the alarm threshold: what the stack's alarm counts. */
export const smsCapNearMessage = 'service-wide SMS count reached its alarm threshold';

/** Logged (error) for every text refused because the hour's cap (or generic share) is reached. */
export const smsCapReachedMessage = 'service-wide SMS cap reached: text refused';

/** The share of the cap at which the warning is logged, so an alarm fires before texts stop. */
export const smsCapAlarmShare = 0.8;

/**
 * Items the hour's count is spread over. Every text writes one of them, so the count's write rate
 * is shared by eight partitions (each sustains 1,000 writes a second: 8,000 texts a second, far
 * above what SNS sends), instead of one item that every text of the service meets.
 */
export const smsCountShards = 8;

/** Texts counted per clock hour, in `smsCountShards` atomic counters. */
export interface SmsCounter {
  /**
   * Adds one text to `shard` of the hour starting at `hourStart` (epoch s), unless `cap` are
   * counted there already; answers the shard's count including it, or undefined when refused.
   */
  take(hourStart: number, shard: number, cap: number): Promise<number | undefined>;
  /** Takes one text back from the hour's shard (a text that was not sent after all). */
  giveBack(hourStart: number, shard: number): Promise<void>;
  /** The texts counted in each of the hour's `shards` shards (one read). */
  counts(hourStart: number, shards: number): Promise<number[]>;
}

/** Where a text was counted, to give it back. */
export interface SmsCounted {
  hourStart: number;
  shard: number;
}

/** The caps of the shards that hold `total`: as even as integers allow, summing to it exactly. */
const shardCaps = (total: number): number[] =>
  Array.from(
    { length: smsCountShards },
    (_, shard) => Math.floor(total / smsCountShards) + (shard < total % smsCountShards ? 1 : 0),
  );

/** Purposes that may spend only the hour's first share. */
const sharedPurposes: readonly OtpPurpose[] = ['generic'];

export class SmsCap {
  /** Each shard's part of `perHour`, and of the share generic codes may take. */
  private readonly caps: { all: number[]; generic: number[] };

  constructor(
    private readonly counter: SmsCounter,
    private readonly clock: Clock,
    /** SMS_MAX_PER_HOUR. */
    readonly perHour: number,
    /** SMS_RESERVED_PERCENT: the last share of the hour kept from generic codes. */
    readonly reservedPercent: number,
    private readonly random: () => number = Math.random,
  ) {
    this.caps = {
      all: shardCaps(perHour),
      generic: shardCaps(perHour - Math.floor((perHour * reservedPercent) / 100)),
    };
  }

  /**
   * Counts one text for `purpose` in the current hour and answers where (for `giveBack`). Throws
   * rate_limited when the cap — for generic codes, their share of it — is reached: one answer for
   * every number, which tells nothing about the target. One conditional write; +1 read and a
   * write when the shard it drew is full while others are not.
   */
  async take(purpose: OtpPurpose): Promise<SmsCounted> {
    const hourStart = this.hourStart();
    const caps = sharedPurposes.includes(purpose) ? this.caps.generic : this.caps.all;
    const open = caps.flatMap((cap, shard) => (cap > 0 ? [shard] : []));
    if (open.length > 0) {
      const drawn = open[Math.floor(this.random() * open.length)]!;
      if (await this.takeFrom(hourStart, drawn, caps)) return { hourStart, shard: drawn };
      // That shard is full: the others are read once, and those with room tried in turn.
      const counts = await this.counter.counts(hourStart, smsCountShards);
      for (const shard of open) {
        if (shard === drawn || (counts[shard] ?? 0) >= caps[shard]!) continue;
        if (await this.takeFrom(hourStart, shard, caps)) return { hourStart, shard };
      }
    }
    throw this.refusal(hourStart, purpose);
  }

  private async takeFrom(hourStart: number, shard: number, caps: number[]): Promise<boolean> {
    const count = await this.counter.take(hourStart, shard, caps[shard]!);
    if (count === undefined) return false;
    if (count === Math.ceil(this.caps.all[shard]! * smsCapAlarmShare)) {
      log.warn(smsCapNearMessage, { count, shard, perHour: this.perHour });
    }
    return true;
  }

  /** Undoes a `take` whose text was not sent (the code was refused by its own limits). */
  giveBack(counted: SmsCounted): Promise<void> {
    return this.counter.giveBack(counted.hourStart, counted.shard);
  }

  /**
   * Throws the cap's refusal when the current hour is already spent, counting nothing: for a
   * request whose text, if any, is sent later by a worker (a sign-in text: the whole cap). One
   * read.
   */
  async refuseWhenSpent(): Promise<void> {
    const hourStart = this.hourStart();
    const counts = await this.counter.counts(hourStart, smsCountShards);
    if (counts.reduce((sum, count) => sum + count, 0) >= this.perHour) {
      throw this.refusal(hourStart, 'login');
    }
  }

  private hourStart(): number {
    const now = Math.floor(this.clock.now() / 1000);
    return now - (now % 3600);
  }

  private refusal(hourStart: number, purpose: OtpPurpose): ServiceError {
    const generic = sharedPurposes.includes(purpose);
    log.error(smsCapReachedMessage, {
      perHour: this.perHour,
      ...(generic ? { purpose, reservedPercent: this.reservedPercent } : {}),
    });
    metrics.count('SmsRefused', { Limit: generic ? 'generic-share' : 'hourly-cap' });
    const now = this.clock.now();
    return new ServiceError(
      'rate_limited',
      'Text messages are paused for the rest of the hour; try again later',
      [],
      {
        retryAfterSeconds: Math.max(1, Math.ceil(((hourStart + 3600) * 1000 - now) / 1000)),
        limit: generic ? 'sms-generic-share' : 'sms-hourly-cap',
      },
    );
  }
}
