/** Outgoing email and SMS, as the domain sees them: the adapters decide how they travel. */

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: EmailMessage): Promise<void>;
}

export interface SmsMessage {
  /** E.164. */
  to: string;
  text: string;
}

export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}
