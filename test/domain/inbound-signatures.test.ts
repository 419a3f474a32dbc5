import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  verifyGatewayBSignature,
  verifyHexHmac,
  verifyMessagingSignature,
} from '../../shared/domain/inbound/signatures.js';

const stripe = new Stripe('sk_test_unused');
const hex = (secret: string, body: string | Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');

// Unusual whitespace, key order and non-ASCII text: what a re-serialising verifier gets wrong.
const rawText =
  '{ "type":"payment.captured",\n\t"id" : "evt_1", "note": "caf\u00e9 \u2603 \ud83d\ude80" }';
const raw = Buffer.from(rawText, 'utf8');
const reserialised = Buffer.from(JSON.stringify(JSON.parse(rawText)), 'utf8');

describe('hex HMAC signatures (gateway A)', () => {
  it('accepts the HMAC of the exact bytes received', () => {
    expect(verifyHexHmac(raw, hex('secret-a', raw), ['secret-a'])).toEqual({ valid: true });
  });

  it('accepts an upper-case hex signature', () => {
    expect(verifyHexHmac(raw, hex('secret-a', raw).toUpperCase(), ['secret-a']).valid).toBe(true);
  });

  it('refuses the signature of the same JSON re-serialised', () => {
    expect(verifyHexHmac(raw, hex('secret-a', reserialised), ['secret-a']).valid).toBe(false);
    expect(verifyHexHmac(reserialised, hex('secret-a', raw), ['secret-a']).valid).toBe(false);
  });

  it('accepts either of two active secrets during rotation, and no other', () => {
    const secrets = ['new-secret', 'old-secret'];
    expect(verifyHexHmac(raw, hex('new-secret', raw), secrets).valid).toBe(true);
    expect(verifyHexHmac(raw, hex('old-secret', raw), secrets).valid).toBe(true);
    expect(verifyHexHmac(raw, hex('retired-secret', raw), secrets).valid).toBe(false);
  });

  it('refuses missing, empty and garbled headers with a reason', () => {
    for (const header of [
      undefined,
      '',
      '   ',
      'not-hex',
      `${hex('secret-a', raw)}00`,
      'zz'.repeat(32),
    ]) {
      const check = verifyHexHmac(raw, header, ['secret-a']);
      expect(check.valid, String(header)).toBe(false);
      expect(check).toEqual({ valid: false, reason: expect.any(String) });
    }
  });
});

describe('messaging signatures', () => {
  it('accepts sha256=<hex HMAC of the exact body>', () => {
    expect(verifyMessagingSignature(raw, `sha256=${hex('app', raw)}`, ['app']).valid).toBe(true);
  });

  it('refuses a bare hex value, another scheme and a re-serialised body', () => {
    expect(verifyMessagingSignature(raw, hex('app', raw), ['app']).valid).toBe(false);
    expect(verifyMessagingSignature(raw, `sha1=${hex('app', raw)}`, ['app']).valid).toBe(false);
    expect(verifyMessagingSignature(raw, `sha256=${hex('app', reserialised)}`, ['app']).valid).toBe(
      false,
    );
  });
});

describe('gateway B signatures', () => {
  const secret = 'whsec_gateway_b_test';
  const now = Date.UTC(2026, 5, 1, 12, 0, 0);
  const nowSeconds = now / 1000;
  const header = (timestamp: number, key = secret, payload = rawText) =>
    stripe.webhooks.generateTestHeaderString({ payload, secret: key, timestamp });

  it('accepts a header made by the gateway’s own library over the raw body', () => {
    expect(verifyGatewayBSignature(raw, header(nowSeconds), [secret], now)).toEqual({
      valid: true,
    });
  });

  it('refuses the same event re-serialised', () => {
    expect(verifyGatewayBSignature(reserialised, header(nowSeconds), [secret], now).valid).toBe(
      false,
    );
  });

  it('accepts a header with several v1 signatures when any one matches', () => {
    const good = header(nowSeconds).split('v1=')[1];
    const several = `t=${nowSeconds},v1=${'0'.repeat(64)},v1=${good},v0=${'1'.repeat(64)}`;
    expect(verifyGatewayBSignature(raw, several, [secret], now).valid).toBe(true);
  });

  it('accepts the old secret while both are active', () => {
    const signedWithOld = header(nowSeconds, 'whsec_old');
    expect(verifyGatewayBSignature(raw, signedWithOld, [secret, 'whsec_old'], now).valid).toBe(
      true,
    );
    expect(verifyGatewayBSignature(raw, signedWithOld, [secret], now).valid).toBe(false);
  });

  it('accepts a timestamp within 300 seconds either way and refuses one beyond', () => {
    expect(verifyGatewayBSignature(raw, header(nowSeconds - 300), [secret], now).valid).toBe(true);
    expect(verifyGatewayBSignature(raw, header(nowSeconds + 300), [secret], now).valid).toBe(true);
    expect(verifyGatewayBSignature(raw, header(nowSeconds - 301), [secret], now)).toEqual({
      valid: false,
      reason: expect.stringContaining('300 seconds'),
    });
    expect(verifyGatewayBSignature(raw, header(nowSeconds + 301), [secret], now).valid).toBe(false);
  });

  it('refuses headers without a timestamp, without v1, or garbled', () => {
    const signature = header(nowSeconds).split('v1=')[1];
    for (const bad of [
      undefined,
      '',
      `v1=${signature}`,
      `t=${nowSeconds}`,
      `t=${nowSeconds},v0=${signature}`,
      `t=abc,v1=${signature}`,
      'garbage',
      `t=${nowSeconds},v1=not-hex`,
    ]) {
      expect(verifyGatewayBSignature(raw, bad, [secret], now).valid, String(bad)).toBe(false);
    }
  });
});
