import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIp, parseIp } from '../../server/ipam';
import { defined } from '../support/defined';
import { addressArb, canonicalText, dotted, versionArb, words } from './ipam-model';

// Canonical texts as PostgreSQL prints them (host(x::inet)), checked against PGlite 0.5.16 (PostgreSQL 18).
const CANONICAL_IPV6: [string, string][] = [
  ['::', '::'],
  ['0:0:0:0:0:0:0:0', '::'],
  ['::1', '::1'],
  ['::2', '::2'],
  ['::ff', '::ff'],
  ['1::', '1::'],
  ['::0.0.0.1', '::1'],
  ['::0.0.1.0', '::100'],
  ['::0.1.0.0', '::0.1.0.0'],
  ['::1:0', '::0.1.0.0'],
  ['::1.2.3.4', '::1.2.3.4'],
  ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
  ['::FFFF:1.2.3.4', '::ffff:1.2.3.4'],
  ['0:0:0:0:0:ffff:102:304', '::ffff:1.2.3.4'],
  ['::0:0:ffff:1.2.3.4', '::ffff:1.2.3.4'],
  ['::ffff:0:0', '::ffff:0.0.0.0'],
  ['0:0:0:0:0:ffff:ffff:ffff', '::ffff:255.255.255.255'],
  ['::fffe:1.2.3.4', '::fffe:102:304'],
  ['ffff::ffff:1.2.3.4', 'ffff::ffff:102:304'],
  ['1::1.2.3.4', '1::102:304'],
  ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
  ['0:0:0:0:0:1:0:0', '::1:0:0'],
  ['1:0:0:1::', '1:0:0:1::'],
  ['0:0:1::1', '0:0:1::1'],
  ['1:0:0:0:1:0:0:0', '1::1:0:0:0'],
  ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
  ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
  ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
  ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
  ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
  ['fe80::', 'fe80::'],
  ['FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

const INVALID_IPS = [
  ...['', ' ', '1.2.3', '1.2.3.4.5', '010.1.1.1', '1.2.3.04', '00.1.2.3', '256.1.1.1', '1.2.3.-1', '1.2.3.+4'],
  ...[' 1.2.3.4', '1.2.3.4 ', '1.2.3.4\n', '1.2.3.4/32', '0x1.2.3.4', '1.2.3.4.', '.1.2.3.4', '1..3.4', '1.2.3.1e1'],
  ...['١.٢.٣.٤', '1.2.3.4%eth0', 'fe80::1%eth0', 'fe80::1%1', '[::1]', '::1/128', ':::', '1:::2', '1::2::3', ':1::'],
  ...['1::2:', ':', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7:8::', '::1:2:3:4:5:6:7:8', '12345::'],
  ...['g::', '::ffff:1.2.3', '::ffff:1.2.3.4.5', '::1.2.3.04', '1.2.3.4::', '::1.2.3.4:1', '1:2:3:4:5:6:7:1.2.3.4'],
  ...['::ffff:256.1.1.1', '0x1::', ' ::1', '::1 ', '::1\n', '+1::', '1:2:3:4:5:6:7:8:', ':1:2:3:4:5:6:7:8'],
];

describe('parseIp and formatIp', () => {
  it.each(CANONICAL_IPV6)('parses %s and prints it as PostgreSQL does: %s', (text, expected) => {
    const ip = parseIp(text);
    expect(ip?.version).toBe(6);
    expect(formatIp(ip!)).toBe(expected);
  });

  it.each(INVALID_IPS)('refuses %j', (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it('reads IPv4 edges', () => {
    expect(parseIp('0.0.0.0')).toEqual({ version: 4, value: 0n });
    expect(parseIp('255.255.255.255')).toEqual({ version: 4, value: 0xffffffffn });
    expect(parseIp('10.1.2.3')).toEqual({ version: 4, value: 0x0a010203n });
    expect(formatIp({ version: 4, value: 0xc0a80001n })).toBe('192.168.0.1');
  });

  it('formatIp∘parseIp round-trips any address, and prints like the model', () => {
    const ipArb = versionArb.chain((version) => addressArb(version).map((value) => ({ version, value })));
    fc.assert(
      fc.property(ipArb, (ip) => {
        const text = formatIp(ip);
        expect(text).toBe(canonicalText(ip.version, ip.value));
        expect(parseIp(text)).toEqual(ip);
      }),
      { numRuns: 2000 },
    );
  });

  it('parses every RFC 4291 spelling of an IPv6 address to the same value', () => {
    const spelling = fc.record({
      value: addressArb(6),
      upper: fc.boolean(),
      pad: fc.boolean(),
      dottedTail: fc.boolean(),
      runPick: fc.nat(),
    });
    fc.assert(
      fc.property(spelling, ({ value, upper, pad, dottedTail, runPick }) => {
        let groups = words(value).map((w) => w.toString(16).padStart(pad ? 4 : 1, '0'));
        if (dottedTail) groups = [...groups.slice(0, 6), dotted(value % 2n ** 32n)];
        const text = compressSomeZeroRun(groups, runPick);
        expect(parseIp(upper ? text.toUpperCase() : text)).toEqual({ version: 6, value });
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses IPv4 octets with leading zeros or out of range', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((n) => ({ text: String(n), ok: true })),
      fc.integer({ min: 0, max: 99 }).map((n) => ({ text: `0${n}`, ok: false })),
      fc.integer({ min: 256, max: 999 }).map((n) => ({ text: String(n), ok: false })),
    );
    fc.assert(
      fc.property(fc.array(octet, { minLength: 4, maxLength: 4 }), (octets) => {
        const ip = parseIp(octets.map((o) => o.text).join('.'));
        expect(ip !== null).toBe(octets.every((o) => o.ok));
      }),
    );
  });
});

/** Replaces one contiguous run of "0" groups (any length ≥ 1, any position) with "::", or none. */
function compressSomeZeroRun(groups: string[], pick: number): string {
  const runs: [number, number][] = [];
  for (let start = 0; start < groups.length; start++) {
    for (let end = start; /^0+$/.test(groups[end] ?? ''); end++) runs.push([start, end + 1]);
  }
  const choice = pick % (runs.length + 1);
  if (choice === runs.length) return groups.join(':');
  const [start, end] = defined(runs[choice], 'a run of zeros');
  return `${groups.slice(0, start).join(':')}::${groups.slice(end).join(':')}`;
}
