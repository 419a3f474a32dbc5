import { type Clock, systemClock } from '../domain/clock.js';
import type { EmailMessage, Mailer, SmsMessage, SmsSender } from '../domain/messages.js';

/** A message the local runtime "sent", as GET /_local/outbox lists it. */
export interface OutboxEntry {
  channel: 'email' | 'sms';
  to: string;
  subject: string | null;
  text: string;
  sent_at: string;
}

/**
 * The local runtime's stand-in for SES and SNS: keeps every message in memory (newest first on
 * read) and prints it, so a developer sees each code on the console. A message's `sent_at` is the
 * service's clock, which `POST /_local/clock` moves, as every other time the service shows.
 */
export class LocalOutbox {
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly print: (line: string) => void = (line) => console.log(line),
    private readonly clock: Clock = systemClock,
  ) {}

  readonly mail: Mailer = {
    send: async (message: EmailMessage) =>
      this.record('email', message.to, message.subject, message.text),
  };

  readonly sms: SmsSender = {
    send: async (message: SmsMessage) => this.record('sms', message.to, null, message.text),
  };

  list(to?: string): OutboxEntry[] {
    const wanted = to?.trim().toLowerCase();
    return this.entries
      .filter((entry) => wanted === undefined || entry.to.toLowerCase() === wanted)
      .reverse();
  }

  private record(
    channel: OutboxEntry['channel'],
    to: string,
    subject: string | null,
    text: string,
  ): void {
    this.entries.push({
      channel,
      to,
      subject,
      text,
      sent_at: new Date(this.clock.now()).toISOString(),
    });
    this.print(`[outbox] ${channel} to ${to}${subject ? ` — ${subject}` : ''}\n${text}`);
  }
}
