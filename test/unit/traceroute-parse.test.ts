/**
 * The traceroute output parser over outputs of Linux traceroute 2.1 (`-n -q 3`): answered hops, silent
 * ones, mixed, load-balanced hops answering from several addresses, ICMP flags, and a property test against
 * generated outputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HOPS, parseTraceroute, tracerouteArgs } from '../../server/modules/tools/traceroute.service';

const hop = (n: number, ip: string | null, rtt1: number | null, rtt2: number | null, rtt3: number | null) => ({
  hop: n,
  ip,
  rtt1_ms: rtt1,
  rtt2_ms: rtt2,
  rtt3_ms: rtt3,
});

describe('parseTraceroute', () => {
  it('reads a loopback trace: one hop, three times', () => {
    expect(parseTraceroute(' 1  127.0.0.1  0.031 ms  0.008 ms  0.006 ms\n')).toEqual([
      hop(1, '127.0.0.1', 0.031, 0.008, 0.006),
    ]);
  });

  it('ignores the header line and reads hops in order', () => {
    const output = [
      'traceroute to 93.184.215.14 (93.184.215.14), 20 hops max, 60 byte packets',
      ' 1  192.168.1.1  0.412 ms  0.389 ms  0.377 ms',
      ' 2  100.64.0.1  8.125 ms  8.003 ms  7.991 ms',
      ' 3  93.184.215.14  23.901 ms  24.210 ms  23.822 ms',
    ].join('\n');
    expect(parseTraceroute(output)).toEqual([
      hop(1, '192.168.1.1', 0.412, 0.389, 0.377),
      hop(2, '100.64.0.1', 8.125, 8.003, 7.991),
      hop(3, '93.184.215.14', 23.901, 24.21, 23.822),
    ]);
  });

  it('gives an unresponsive hop a null ip and null times', () => {
    expect(parseTraceroute(' 4  * * *')).toEqual([hop(4, null, null, null, null)]);
  });

  it('keeps the position of unanswered probes on a mixed line', () => {
    expect(parseTraceroute(' 5  * 62.115.42.118  8.1 ms *')).toEqual([hop(5, '62.115.42.118', null, 8.1, null)]);
    expect(parseTraceroute(' 6  62.115.42.118  8.1 ms * *')).toEqual([hop(6, '62.115.42.118', 8.1, null, null)]);
  });

  it('takes the first responder of a hop answered by several addresses, with every probe’s time', () => {
    const line = ' 7  10.10.0.1  1.234 ms 10.10.0.2  2.345 ms 10.10.0.3  3.456 ms';
    expect(parseTraceroute(line)).toEqual([hop(7, '10.10.0.1', 1.234, 2.345, 3.456)]);
  });

  it('ignores !H-style flags after a time', () => {
    const line = ' 8  198.51.100.9  12.500 ms !H  12.700 ms !N  * ';
    expect(parseTraceroute(line)).toEqual([hop(8, '198.51.100.9', 12.5, 12.7, null)]);
    expect(parseTraceroute(' 9  198.51.100.9  1.0 ms !X 2.0 ms !<10> 3.0 ms !Z')).toEqual([
      hop(9, '198.51.100.9', 1, 2, 3),
    ]);
  });

  it('reads IPv6 hops and normalises the address', () => {
    const line = ' 1  2001:DB8:0:0::1  0.5 ms  0.4 ms  0.3 ms';
    expect(parseTraceroute(line)).toEqual([hop(1, '2001:db8::1', 0.5, 0.4, 0.3)]);
  });

  it('reads the address out of a `name (address)` form', () => {
    const line = ' 2  router.example.net (203.0.113.1)  1.1 ms  1.2 ms  1.3 ms';
    expect(parseTraceroute(line)).toEqual([hop(2, '203.0.113.1', 1.1, 1.2, 1.3)]);
  });

  it('ignores lines that are not hops, and text that is not an address', () => {
    const output = [
      'traceroute: warning: multiple interfaces have been used',
      'connect: Network is unreachable',
      ' 1  not-an-ip  1.0 ms  2.0 ms  3.0 ms',
      '',
    ].join('\n');
    expect(parseTraceroute(output)).toEqual([hop(1, null, 1, 2, 3)]);
  });

  it('ignores hop numbers out of order, repeated, or beyond the maximum', () => {
    const output = [
      ' 2  10.0.0.2  1.0 ms',
      ' 2  10.0.0.9  1.0 ms',
      ' 1  10.0.0.1  1.0 ms',
      ` ${MAX_HOPS + 1}  10.0.0.3  1.0 ms`,
    ];
    expect(parseTraceroute(output.join('\n'))).toEqual([hop(2, '10.0.0.2', 1, null, null)]);
  });

  it('reads a hop cut off mid-line (the run was stopped)', () => {
    expect(parseTraceroute(' 1  127.0.0.1  0.1 ms  0.2 ms\n 2  10.0.0.1  1.')).toEqual([
      hop(1, '127.0.0.1', 0.1, 0.2, null),
      hop(2, null, null, null, null),
    ]);
  });

  it('answers every hop of generated outputs with the probes as written', () => {
    const probe = fc.oneof(
      fc.constant(null),
      fc.record({
        ip: fc.option(fc.ipV4(), { nil: undefined }),
        rtt: fc.integer({ min: 0, max: 999_999 }).map((n) => n / 1000),
        flag: fc.constantFrom('', ' !H', ' !N', ' !X'),
      }),
    );
    const hops = fc.array(fc.array(probe, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: MAX_HOPS });
    fc.assert(
      fc.property(hops, (generated) => {
        let lastIp = '0.0.0.0';
        const expected = generated.map((probes, i) => {
          let first: string | null = null;
          const parts = probes.map((p, j) => {
            if (p === null) return '*';
            // traceroute prints an address before the first answer and whenever the responder changes.
            const ip = p.ip ?? (j === 0 || first === null ? lastIp : undefined);
            if (ip) lastIp = ip;
            first ??= lastIp;
            return `${ip ? `${ip}  ` : ''}${p.rtt.toFixed(3)} ms${p.flag}`;
          });
          const [rtt1 = null, rtt2 = null, rtt3 = null] = probes.map((p) =>
            p === null ? null : Number(p.rtt.toFixed(3)),
          );
          return {
            line: `${String(i + 1).padStart(2)}  ${parts.join('  ')}`,
            hop: hop(i + 1, first, rtt1, rtt2, rtt3),
          };
        });
        const output = `traceroute to 1.2.3.4 (1.2.3.4), 20 hops max, 60 byte packets\n${expected.map((e) => e.line).join('\n')}\n`;
        expect(parseTraceroute(output)).toEqual(expected.map((e) => e.hop));
      }),
    );
  });
});

describe('tracerouteArgs', () => {
  it('asks for numeric output, 3 probes, a 1 s wait and at most 20 hops, for the address family given', () => {
    expect(tracerouteArgs('127.0.0.1')).toEqual(['-n', '-4', '-q', '3', '-w', '1', '-m', '20', '127.0.0.1']);
    expect(tracerouteArgs('::1')).toEqual(['-n', '-6', '-q', '3', '-w', '1', '-m', '20', '::1']);
  });
});
