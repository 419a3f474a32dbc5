import { describe, expect, it } from 'vitest';
import {
  type ItemFamily,
  itemFamilies,
  itemFamilyIndex,
  itemFamilyOf,
  keys,
  leadingKeyPattern,
} from '../../shared/adapters/keys.js';
import type { IndexName } from '../../shared/adapters/table-definition.js';

/** Every partition a key builder makes, with where it lives (table or index). */
function partitionsOfEveryBuilder(): { builder: string; partition: string; index?: IndexName }[] {
  return Object.entries(keys).flatMap(([builder, build]) => {
    const key = (build as (...parts: string[]) => Record<string, string>)('a', 'b', 'c');
    return [
      ...(key.pk === undefined ? [] : [{ builder, partition: key.pk }]),
      ...(key.gsi1pk === undefined
        ? []
        : [{ builder, partition: key.gsi1pk, index: 'gsi1' as const }]),
      ...(key.gsi2pk === undefined
        ? []
        : [{ builder, partition: key.gsi2pk, index: 'gsi2' as const }]),
    ];
  });
}

const globMatches = (pattern: string, value: string) =>
  pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : value === pattern;

describe('item families', () => {
  it('hold every partition the key builders make, each in exactly one family', () => {
    for (const { builder, partition, index } of partitionsOfEveryBuilder()) {
      const matching = (Object.keys(itemFamilies) as ItemFamily[]).filter(
        (family) =>
          itemFamilyIndex(family) === index && globMatches(leadingKeyPattern(family), partition),
      );
      expect(matching, `${builder}: ${partition}`).toHaveLength(1);
      expect(itemFamilyOf(partition, index), builder).toBe(matching[0]);
    }
  });

  it('are each made by some key builder: no family grants partitions nothing writes', () => {
    const made = new Set(
      partitionsOfEveryBuilder().map(({ partition, index }) => itemFamilyOf(partition, index)),
    );
    expect([...made].sort()).toEqual(Object.keys(itemFamilies).sort());
  });

  it('keep an index partition out of the table families, and a table partition out of the index', () => {
    expect(itemFamilyOf('DELIVERIES_DUE')).toBeUndefined();
    expect(itemFamilyOf('USER#u1', 'gsi2')).toBeUndefined();
    // Prefixes end in #: OTP#… is not OTP_ATTEMPTS#…, INBOUND#… not INBOUND_ATTEMPT#….
    expect(itemFamilyOf('OTP_ATTEMPTS#sms#+15555550123#login')).toBe('otpAttempts');
    expect(itemFamilyOf('INBOUND_ATTEMPT#gateway-b#x')).toBe('inboundAttempt');
  });
});

/**
 * Builders whose partition is one fixed value, and why no request writes it: a fixed partition
 * written per request meets every request's write on one key (about 1,000 writes a second).
 */
const writtenOutsideRequests: Partial<Record<keyof typeof keys, string>> = {
  accessTokenKeys: 'written when the signing keys rotate, read by every function once a minute',
};

/**
 * Arguments from a small vocabulary, held constant: a partition that varies only with them is
 * still one of a handful of keys (an inbound gateway source, an OTP channel or purpose).
 */
const boundedArgument = (builder: string, parameter: string) =>
  ['channel', 'purpose', 'status'].includes(parameter) ||
  (parameter === 'source' && /^(inbound|stalledInbound)/.test(builder));

const parametersOf = (build: (...parts: string[]) => unknown): string[] =>
  /^\(([^)]*)\)/
    .exec(build.toString())?.[1]
    ?.split(',')
    .map((parameter) => parameter.trim().split(/[\s:=]/)[0]!)
    .filter((parameter) => parameter.length > 0) ?? [];

describe('key builders', () => {
  it('give every key written per request more than one partition', () => {
    for (const [builder, build] of Object.entries(keys) as [
      keyof typeof keys,
      (...parts: string[]) => Record<string, string>,
    ][]) {
      const parameters = parametersOf(build);
      const partitions = new Set(
        Array.from({ length: 32 }, (_, sample) => {
          const key = build(
            ...parameters.map((parameter) =>
              boundedArgument(builder, parameter) ? 'fixed' : `${parameter}-${sample}`,
            ),
          );
          return [key.pk, key.gsi1pk, key.gsi2pk].filter((part) => part !== undefined).join(' ');
        }),
      );
      if (writtenOutsideRequests[builder] !== undefined) {
        expect(partitions.size, builder).toBe(1);
      } else {
        expect(partitions.size, `${builder} writes one fixed partition`).toBeGreaterThan(1);
      }
    }
  });
});
