import type { OtpPurpose } from './purposes.js';

/**
 * The words of every code message, by purpose. Each carries the code once and no other 6-digit
 * number, says how long it lasts, and tells the reader not to share it (the usual lure of
 * account-takeover calls). Codes are digits, so nothing here needs HTML escaping.
 */

export interface CodeEmail {
  subject: string;
  text: string;
  html: string;
}

interface Wording {
  /** Email subject. */
  subject: string;
  /** What the code does, completing "Use this code to …". */
  action: string;
  /** Who should ignore it. */
  ignore: string;
}

const wording: Record<OtpPurpose, Wording> = {
  signup: {
    subject: 'Verify your email to activate your account',
    action: 'verify your email address and activate your account',
    ignore: 'If you did not sign up, you can ignore this message.',
  },
  verification: {
    subject: 'Confirm your email address',
    action: 'confirm that this address is yours',
    ignore: 'If you did not ask for this, you can ignore this message.',
  },
  password_reset: {
    subject: 'Your password reset code',
    action: 'reset your password',
    ignore: 'If you did not ask to reset your password, ignore this message: it stays unchanged.',
  },
  login: {
    subject: 'Your login code',
    action: 'log in',
    ignore: 'If you did not try to log in, someone may know your number; you can ignore this.',
  },
  generic: {
    subject: 'Your verification code',
    action: 'complete your verification',
    ignore: 'If you did not ask for this, you can ignore this message.',
  },
};

const smsWording: Record<OtpPurpose, string> = {
  signup: 'verification code',
  verification: 'code to verify this phone number',
  password_reset: 'password reset code',
  login: 'login code',
  generic: 'verification code',
};

export function codeEmail(purpose: OtpPurpose, code: string, minutes: number): CodeEmail {
  const words = wording[purpose];
  const lines = [
    `Use this code to ${words.action}:`,
    '',
    code,
    '',
    `It expires in ${minutes} minutes and works once. Never share it: we will never ask you for it.`,
    words.ignore,
  ];
  const html = [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif;line-height:1.5">',
    `<p>Use this code to ${words.action}:</p>`,
    `<p style="font-size:28px;font-weight:bold;letter-spacing:6px">${code}</p>`,
    `<p>It expires in ${minutes} minutes and works once. Never share it: we will never ask you for it.</p>`,
    `<p style="color:#666">${words.ignore}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: words.subject, text: lines.join('\n'), html };
}

export function codeSms(purpose: OtpPurpose, code: string, minutes: number): string {
  return `${code} is your ${smsWording[purpose]}. It expires in ${minutes} minutes. Never share it.`;
}
