/**
 * DMARC (server/modules/tools/dmarc.ts) without a network: record selection, the organisational domain,
 * tag validation, and the parser against generated valid records and arbitrary text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDmarcRecord, parseDmarc } from '../../server/modules/tools/dmarc';
import { organisationalDomain } from '../../server/modules/tools/domains';

describe('isDmarcRecord', () => {
  it.each(['v=DMARC1; p=none', 'v=DMARC1', 'V = DMARC1 ;p=reject', 'v=DMARC1;'])('accepts %s', (text) => {
    expect(isDmarcRecord(text)).toBe(true);
  });

  it.each(['v=dmarc1; p=none', 'v=DMARC10; p=none', 'p=none; v=DMARC1', ' v=DMARC1', 'v=spf1 -all'])(
    'discards %s',
    (text) => {
      expect(isDmarcRecord(text)).toBe(false);
    },
  );
});

describe('organisationalDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['mail.example.com', 'example.com'],
    ['a.b.c.example.com.', 'example.com'],
    ['Shop.Example.CO.UK', 'example.co.uk'],
    ['example.co.uk', 'example.co.uk'],
    ['co.uk', 'co.uk'],
    ['x.y.example.com.au', 'example.com.au'],
    ['www.example.co.jp', 'example.co.jp'],
    ['com', 'com'],
  ])('%s → %s', (domain, expected) => {
    expect(organisationalDomain(domain)).toBe(expected);
  });
});

describe('parseDmarc', () => {
  const parse = (record: string) => parseDmarc(record, 'example.com');

  it('reads every tag, the policies, and finds nothing wrong in a complete record', () => {
    const record = parse(
      'v=DMARC1; p=Reject; sp=quarantine; pct=100; adkim=s; aspf=r; rua=mailto:a@example.com,mailto:b@mail.example.com!10m; ' +
        'ruf=mailto:f@example.com; fo=0:1:d:s; ri=3600; rf=afrf;',
    );
    expect(record).toEqual({
      tags: {
        v: 'DMARC1',
        p: 'Reject',
        sp: 'quarantine',
        pct: '100',
        adkim: 's',
        aspf: 'r',
        rua: 'mailto:a@example.com,mailto:b@mail.example.com!10m',
        ruf: 'mailto:f@example.com',
        fo: '0:1:d:s',
        ri: '3600',
        rf: 'afrf',
      },
      policy: 'reject',
      subdomainPolicy: 'quarantine',
      errors: [],
      warnings: [],
    });
  });

  it('gives subdomains the policy p when sp is absent', () => {
    expect(parse('v=DMARC1; p=quarantine; rua=mailto:a@example.com').subdomainPolicy).toBe('quarantine');
  });

  it.each([
    ['v=DMARC1; rua=mailto:a@example.com', 'p tag missing: it is required (RFC 7489 6.3)'],
    ['v=DMARC1; p=block', 'p=block: must be one of none, quarantine, reject'],
    ['v=DMARC1; p=none; sp=drop', 'sp=drop: must be one of none, quarantine, reject'],
    ['v=DMARC1; p=none; pct=101', 'pct=101: must be an integer from 0 to 100'],
    ['v=DMARC1; p=none; pct=-1', 'pct=-1: must be an integer from 0 to 100'],
    ['v=DMARC1; p=none; pct=5.5', 'pct=5.5: must be an integer from 0 to 100'],
    ['v=DMARC1; p=none; adkim=x', 'adkim=x: must be one of r, s'],
    ['v=DMARC1; p=none; aspf=strict', 'aspf=strict: must be one of r, s'],
    [
      'v=DMARC1; p=none; rua=a@example.com',
      'rua=a@example.com: "a@example.com" is not a URI (e.g. mailto:dmarc@example.com)',
    ],
    [
      'v=DMARC1; p=none; rua=mailto:a@example.com!10x',
      'rua=mailto:a@example.com!10x: "mailto:a@example.com!10x": the size limit after ! must be a number with an optional k, m, g or t',
    ],
    ['v=DMARC1; p=none; ruf=mailto:nobody', 'ruf=mailto:nobody: "mailto:nobody" is not a valid mailto: address'],
    ['v=DMARC1; p=none; fo=2', 'fo=2: must be a colon-separated list of 0, 1, d, s'],
    ['v=DMARC1; p=none; ri=daily', 'ri=daily: must be a number of seconds'],
    ['v=DMARC1; p=none; rf=iodef', 'rf=iodef: must be a colon-separated list of afrf'],
    ['v=DMARC1; p=none; p=reject', 'duplicate tag p'],
    ['v=DMARC1; p=none; garbage', '"garbage" is not a tag=value pair'],
  ])('%s: %s', (text, error) => {
    expect(parse(text).errors).toEqual([error]);
  });

  it('warns about p=none, pct below 100, unknown tags, no rua, fo without ruf, other schemes and external destinations', () => {
    expect(parse('v=DMARC1; p=none; pct=20; x=1; fo=1').warnings).toEqual([
      'unknown tag x (ignored by receivers)',
      'p=none: monitoring only, receivers take no action on failing mail',
      'pct=20: the policy applies to 20% of failing mail only',
      'no rua tag: no aggregate reports will be sent',
      'fo has no effect without ruf',
    ]);
    expect(
      parse('v=DMARC1; p=reject; rua=https://reports.example.com/dmarc,mailto:d@agg.example.net').warnings,
    ).toEqual([
      'rua: https://reports.example.com/dmarc is not a mailto: URI; report senders are only required to support mailto:',
      expect.stringMatching(
        /^rua: reports go to agg\.example\.net, outside example\.com: .* at example\.com\._report\._dmarc\.agg\.example\.net/,
      ),
    ]);
  });

  it('treats tag names case-insensitively and keeps values as written', () => {
    expect(parse('v=DMARC1; P=reject; RUA=mailto:A@Example.com').tags).toEqual({
      v: 'DMARC1',
      p: 'reject',
      rua: 'mailto:A@Example.com',
    });
  });

  it('finds no error in generated valid records, and reads their tags back', () => {
    const tag = {
      p: fc.constantFrom('none', 'quarantine', 'reject', 'REJECT'),
      sp: fc.constantFrom('none', 'quarantine', 'reject'),
      pct: fc.integer({ min: 0, max: 100 }).map(String),
      adkim: fc.constantFrom('r', 's'),
      aspf: fc.constantFrom('r', 's'),
      rua: fc.constantFrom('mailto:a@example.com', 'mailto:a@example.com!10m,mailto:b@sub.example.com'),
      ri: fc.integer({ min: 0, max: 2 ** 31 }).map(String),
      fo: fc.subarray(['0', '1', 'd', 's'], { minLength: 1 }).map((v) => v.join(':')),
    };
    const recordArb = fc
      .record(tag, { requiredKeys: ['p'] })
      .chain((tags) => fc.constantFrom(';', '; ', ' ; ').map((separator) => ({ tags, separator })));
    fc.assert(
      fc.property(recordArb, ({ tags, separator }) => {
        const text = ['v=DMARC1', ...Object.entries(tags).map(([k, v]) => `${k}=${v}`)].join(separator);
        const record = parse(text);
        expect(record.errors).toEqual([]);
        expect(record.tags).toEqual({ v: 'DMARC1', ...tags });
        expect(record.policy).toBe(tags.p.toLowerCase());
        expect(record.subdomainPolicy).toBe(tags.sp ?? tags.p.toLowerCase());
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary text, and echoes no control character', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (tail) => {
        const record = parse(`v=DMARC1; ${tail}`);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
        const control = /[\u0000-\u001f\u007f-\u009f]/;
        for (const text of [...record.errors, ...record.warnings, ...Object.values(record.tags)]) {
          expect(text).not.toMatch(control);
        }
      }),
      { numRuns: 150 },
    );
  });
});
