import type { InboundSource } from './model.js';

/**
 * Calls refused before anything proved their sender — no valid signature, a handshake with a
 * wrong token — are counted one by one (the InboundEvents metric), but only a sample of them is
 * stored: at most `perMinute` per source in each minute, by each running copy of a receiver. A
 * flood of unsigned calls then costs no write per call, and cannot fill the table nor throttle
 * the index partition the real gateway's audit records share (docs/receivers.md, "What protects
 * the Function URLs").
 *
 * Kept in memory: the bound holds per function instance, so a receiver stores at most
 * `perMinute` × its reserved concurrency such records a minute.
 */
export class UnprovenSample {
  private minute = -1;
  private readonly stored = new Map<InboundSource, number>();

  constructor(readonly perMinute: number) {}

  /** Whether one more refused call of `source` received at `at` (epoch ms) may be stored. */
  admit(source: InboundSource, at: number): boolean {
    const minute = Math.floor(at / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.stored.clear();
    }
    const stored = this.stored.get(source) ?? 0;
    if (stored >= this.perMinute) return false;
    this.stored.set(source, stored + 1);
    return true;
  }
}

/** Refused calls of unproven senders stored per source a minute, by each receiver instance. */
export const unprovenSamplesPerMinute = 20;
