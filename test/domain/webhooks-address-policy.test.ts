import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../shared/adapters/webhook-url-guard.js';
import { classifyAddress } from '../../shared/domain/webhooks/address-policy.js';

describe('the SSRF address rule', () => {
  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('admits the public address %s', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.10.10',
    '::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::127.0.0.1',
    '::7f00:1',
    '::10.1.2.3',
    '2002:c0a8:0101::1',
    '2002:7f00:1:0:808:808:808:808',
  ])('treats %s as private (admitted only when private networks are allowed)', (address) => {
    expect(classifyAddress(address)).toBe('private');
  });

  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::ffff:0:a9fe:a9fe',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    'ff02::1',
    '::',
    '2001:db8::1',
    '2001:0:4136:e378::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '::a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '64:ff9b:1::a00:1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:7f00:0:100:808:808',
    '0177.0.0.1',
    '2130706433',
    '0x7f.0.0.1',
    'localhost',
  ])('never admits %s', (address) => {
    expect(classifyAddress(address)).toBe('forbidden');
  });
});

describe('the URL guard', () => {
  it.each([
    ['http://example.com/hook', 'must use https'],
    ['https://user:pw@example.com/hook', 'must not contain credentials'],
  ])('refuses %s', async (url, reason) => {
    expect(await resolveTarget(url, false)).toEqual({ ok: false, reason });
  });

  it.each([
    'https://127.0.0.1/hook',
    'https://localhost:8443/hook',
    'https://2130706433/hook',
    'https://0177.0.0.1/hook',
    'https://0x7f000001/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://10.0.0.8/hook',
  ])('refuses %s, which reaches a private or metadata address', async (url) => {
    const target = await resolveTarget(url, false);
    expect(target.ok).toBe(false);
  });

  it('admits a loopback receiver when private networks are allowed, pinned to the address', async () => {
    const target = await resolveTarget('https://127.0.0.1:9443/hook', true);
    expect(target).toMatchObject({ ok: true, address: '127.0.0.1', family: 4 });
  });

  it('still refuses the metadata service when private networks are allowed', async () => {
    expect((await resolveTarget('https://169.254.169.254/', true)).ok).toBe(false);
    expect((await resolveTarget('https://[::ffff:169.254.169.254]/', true)).ok).toBe(false);
  });

  it('admits a public address literal', async () => {
    expect(await resolveTarget('https://93.184.215.14/hook', false)).toMatchObject({
      ok: true,
      address: '93.184.215.14',
    });
  });
});
