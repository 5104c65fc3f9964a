/**
 * The DNS client and the pure parts of the DNS tools: reverse names against a straightforward model, which
 * records of an answer count, where to look for a zone next, and how an unreachable resolver fails.
 */
import dgram from 'node:dgram';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../server/errors';
import { formatIp, type Ip, parseIp } from '../../server/ipam';
import { answerRecords, nextCandidate } from '../../server/modules/tools/dns.service';
import { arpaName, type DnsRecord, DnsUnreachable, queryDns } from '../../server/modules/tools/dns-client';
import { checkedTarget, resolverOfHosts, toolsOf } from '../../server/modules/tools/tools';
import { testConfig } from '../support/server';

describe('arpaName', () => {
  /** The model: the address's own text, reversed octet by octet or hex digit by hex digit. */
  const model = (ip: Ip) => {
    if (ip.version === 4) return `${formatIp(ip).split('.').reverse().join('.')}.in-addr.arpa`;
    const hex = ip.value.toString(16).padStart(32, '0');
    return `${[...hex].reverse().join('.')}.ip6.arpa`;
  };

  it('reverses IPv4 and IPv6 addresses as the model does', () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6()).map((text) => parseIp(text));
    fc.assert(
      fc.property(address, (ip) => {
        expect(ip).not.toBeNull();
        if (ip) expect(arpaName(ip)).toBe(model(ip));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['8.8.4.4', '4.4.8.8.in-addr.arpa'],
    ['0.0.0.0', '0.0.0.0.in-addr.arpa'],
    ['::1', `1.${'0.'.repeat(31)}ip6.arpa`],
    ['2001:db8::567:89ab', 'b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa'],
  ])('names %s %s', (text, name) => {
    const ip = parseIp(text);
    expect(ip && arpaName(ip)).toBe(name);
  });
});

const record = (name: string, type: string, data: string): DnsRecord => ({ name, type, ttl: 60, text: data, data });

describe('answerRecords', () => {
  it('follows a CNAME chain given in any order, and ignores records of other names', () => {
    const answers = [
      record('c.test', 'A', '192.0.2.3'),
      record('b.test', 'CNAME', 'c.test'),
      record('unrelated.test', 'A', '192.0.2.9'),
      record('A.Test', 'CNAME', 'b.test'),
    ];
    expect(answerRecords(answers, 'a.test.', 'A').map((r) => r.text)).toEqual(['192.0.2.3']);
    expect(answerRecords(answers, 'a.test', 'CNAME').map((r) => r.text)).toEqual(['b.test']);
  });

  it('ends on a CNAME loop', () => {
    const answers = [record('a.test', 'CNAME', 'b.test'), record('b.test', 'CNAME', 'a.test')];
    expect(answerRecords(answers, 'a.test', 'A')).toEqual([]);
  });
});

describe('nextCandidate', () => {
  const soa = (zone: string) => ({ answers: [], authorities: [record(zone, 'SOA', '…')] });

  it('moves to the zone of the SOA when it encloses the name', () => {
    expect(nextCandidate('a.b.example.test', soa('example.test'))).toBe('example.test');
    expect(nextCandidate('example', soa(''))).toBe('');
  });

  it('moves to the parent when the SOA does not enclose the name, or names the name itself', () => {
    expect(nextCandidate('a.b.example.test', soa('other.test'))).toBe('b.example.test');
    expect(nextCandidate('a.b.example.test', soa('xb.example.test'))).toBe('b.example.test');
    expect(nextCandidate('b.example.test', soa('b.example.test'))).toBe('example.test');
    expect(nextCandidate('test', { answers: [], authorities: [] })).toBe('');
  });

  it('moves to the parent of an alias, whose SOA is its target’s zone', () => {
    const aliased = {
      answers: [record('www.example.test', 'CNAME', 'cdn.other.test')],
      authorities: soa('other.test').authorities,
    };
    expect(nextCandidate('www.example.test', aliased)).toBe('example.test');
  });
});

describe('an unreachable resolver', () => {
  const closedPort = async () => {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  };

  it('fails at once when its port is closed, rather than at the deadline', async () => {
    const started = Date.now();
    await expect(queryDns({ address: '127.0.0.1', port: await closedPort() }, 'example.test', 'A')).rejects.toThrow(
      DnsUnreachable,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('makes resolving a target a 502, not "does not resolve"', async () => {
    const config = testConfig();
    const toolsConfig = { ...config.tools, recursiveResolver: { address: '127.0.0.1', port: await closedPort() } };
    const context = {
      config: { ...config, tools: toolsConfig },
      resolveHost: resolverOfHosts(toolsConfig, async () => ['192.0.2.1']),
      now: () => new Date(),
    };
    const tools = toolsOf(context);
    const failure = await checkedTarget(tools, 'example.test', 'host').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({ status: 502, code: 'upstream_failed' });
  });
});
