import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { prettyLogWriter } from '../../shared/local/pretty-log.js';

/** What the writer prints, colours taken out. */
function printed(write: (out: Writable) => void): string[] {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  write(out);
  return stripVTControlCharacters(lines.join('')).split('\n').filter(Boolean);
}

const context = {
  service: 'AccountOtpWebhookService-local',
  cold_start: true,
  function_name: 'login',
  function_request_id: 'f0b7c6a1-0000-4000-8000-000000000000',
  api_request_id: '3f2a9b1c-1111-4111-8111-111111111111',
  correlation_id: '3f2a9b1c-1111-4111-8111-111111111111',
};

describe('the local runtime’s lines on a terminal', () => {
  it('print one line per record: time, level, message, its own fields, then function and correlation id', () => {
    const [line] = printed((out) =>
      prettyLogWriter(out)(
        {
          level: 'INFO',
          message: 'request',
          timestamp: '2026-11-27T09:18:15.614Z',
          ...context,
          method: 'POST',
          path: '/auth/login',
          status: 401,
          note: 'two words',
        },
        'info',
      ),
    );
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {3}request {2}method=POST {2}path=\/auth\/login {2}status=401 {2}note="two words" {2}\[login · 3f2a9b1c · cold\]$/,
    );
  });

  it('print an error’s stack under its line', () => {
    const error = new Error('the table is unavailable');
    const lines = printed((out) =>
      prettyLogWriter(out)({ level: 'ERROR', message: 'queue message failed', error }, 'error'),
    );
    expect(lines[0]).toContain(
      'ERROR  queue message failed  error=Error: the table is unavailable',
    );
    expect(lines[1]).toMatch(/^ {4}Error: the table is unavailable$/);
    expect(lines.length).toBeGreaterThan(2);
  });

  it('print a metric document as its name, value and dimensions', () => {
    const [line] = printed((out) =>
      prettyLogWriter(out)(
        {
          ...context,
          _aws: {
            Timestamp: 1,
            CloudWatchMetrics: [
              {
                Namespace: 'AccountOtpWebhookService-local',
                Dimensions: [['Channel'], ['Channel', 'Country']],
                Metrics: [{ Name: 'OtpSent', Unit: 'Count' }],
              },
            ],
          },
          Channel: 'sms',
          Country: 'GB',
          OtpSent: 1,
        },
        'info',
      ),
    );
    expect(line).toMatch(
      / METRIC OtpSent 1 Channel=sms Country=GB {2}\[login · 3f2a9b1c · cold\]$/,
    );
  });
});
