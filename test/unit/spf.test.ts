/**
 * SPF (server/modules/tools/spf.ts) without a network: the term syntax, macro expansion, and the lookup
 * counter against a brute-force model over random include/redirect graphs, DNS answered from the graph.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpf, expandDomainSpec, parseSpf, type SpfResolver } from '../../server/modules/tools/spf';
import { defined } from '../support/defined';

const terms = (record: string) =>
  parseSpf(record).terms.map(({ qualifier, mechanism, value }) => ({ qualifier, mechanism, value }));
const errorsOf = (record: string) => parseSpf(record).errors;

describe('parseSpf', () => {
  it('reads qualifiers (default +), arguments and modifiers', () => {
    expect(
      terms(
        'v=spf1 a -mx:mail.example.com/24 ~ip6:2001:db8::/32 ?include:_spf.example.com a//64 redirect=x.example.com',
      ),
    ).toEqual([
      { qualifier: '+', mechanism: 'a', value: null },
      { qualifier: '-', mechanism: 'mx', value: 'mail.example.com/24' },
      { qualifier: '~', mechanism: 'ip6', value: '2001:db8::/32' },
      { qualifier: '?', mechanism: 'include', value: '_spf.example.com' },
      { qualifier: '+', mechanism: 'a', value: '//64' },
      { qualifier: '+', mechanism: 'redirect', value: 'x.example.com' },
    ]);
  });

  it('reads mechanism names case-insensitively and ignores repeated spaces', () => {
    expect(terms('V=SPF1   IP4:192.0.2.1  -ALL ')).toEqual([
      { qualifier: '+', mechanism: 'ip4', value: '192.0.2.1' },
      { qualifier: '-', mechanism: 'all', value: null },
    ]);
  });

  it.each([
    'v=spf1 ip4:192.0.2.0/24 ip4:0.0.0.0/0 ip6:::1 ip6:2001:db8::/128 -all',
    'v=spf1 a mx a:example.com/24//64 mx/16 ptr ptr:example.com -all',
    'v=spf1 include:_spf.example.com exists:%{ir}.%{l1r+-}._spf.%{d} -all',
    'v=spf1 include:%{d2}.example.org exp=explain._spf.%{d} -all',
    'v=spf1 a:foo%%bar.example.com a:example.com. -all',
    'v=spf1 unknown-modifier=anything%{i} -all',
  ])('finds no error in %s', (record) => {
    expect(errorsOf(record)).toEqual([]);
  });

  it.each([
    ['v=spf1 ip4:300.1.1.1 -all', 'ip4:300.1.1.1: not a valid IPv4 address or network'],
    ['v=spf1 ip4:192.0.2.0/33', 'ip4:192.0.2.0/33: not a valid IPv4 address or network'],
    ['v=spf1 ip4:192.0.02.1', 'ip4:192.0.02.1: not a valid IPv4 address or network'],
    ['v=spf1 ip4:2001:db8::1', 'ip4:2001:db8::1: not a valid IPv4 address or network'],
    ['v=spf1 ip6:2001:db8::/129', 'ip6:2001:db8::/129: not a valid IPv6 address or network'],
    ['v=spf1 ip6:192.0.2.1', 'ip6:192.0.2.1: not a valid IPv6 address or network'],
    ['v=spf1 a/33', 'a/33: /33 is not an IPv4 prefix length (0-32)'],
    ['v=spf1 mx//129', 'mx//129: //129 is not an IPv6 prefix length (0-128)'],
    ['v=spf1 include', 'include: needs a domain, as in include:example.com'],
    ['v=spf1 include:com', 'include:com: not a fully qualified domain name'],
    ['v=spf1 include:example.123', 'include:example.123: not a fully qualified domain name'],
    ['v=spf1 include:a..example.com', 'include:a..example.com: not a valid domain name'],
    ['v=spf1 exists:%{x}.example.com', 'exists:%{x}.example.com: macro %{x} is not allowed here'],
    ['v=spf1 exists:%{c}.example.com', 'exists:%{c}.example.com: macro %{c} is not allowed here'],
    [
      'v=spf1 include:%{d0}.example.com',
      'include:%{d0}.example.com: macro %{d0}: the digit transformer must be 1 to 128',
    ],
    ['v=spf1 include:50%.example.com', 'include:50%.example.com: invalid macro at "%.example.com"'],
    ['v=spf1 -all:x', 'all:x: takes no argument'],
    ['v=spf1 ptr/24', 'ptr/24: takes only a domain'],
    ['v=spf1 foo:bar', 'foo:bar: unknown mechanism'],
    ['v=spf1 redirect=a.example.com redirect=b.example.com', 'redirect=b.example.com: appears more than once'],
    ['v=spf1 =x', '"=x" is not a valid term'],
  ])('%s: %s', (record, error) => {
    expect(errorsOf(record)).toEqual([error]);
  });

  it('warns about ptr, +all, ?all, a missing all, redirect beside all and terms after all', () => {
    expect(parseSpf('v=spf1 ptr +all').warnings).toEqual([
      expect.stringMatching(/^ptr is deprecated/),
      expect.stringMatching(/^\+all passes mail/),
    ]);
    expect(parseSpf('v=spf1 ?all').warnings).toEqual([expect.stringMatching(/^\?all gives a neutral result/)]);
    expect(parseSpf('v=spf1 ip4:192.0.2.1').warnings).toEqual([expect.stringMatching(/^no all mechanism or redirect/)]);
    expect(parseSpf('v=spf1 -all redirect=x.example.com a').warnings).toEqual([
      expect.stringMatching(/^redirect is ignored/),
      expect.stringMatching(/^mechanisms after all are never evaluated/),
    ]);
    expect(parseSpf('v=spf1 ~all').warnings).toEqual([]);
  });

  it('reads a modifier named like a mechanism (all=x, include=x) as an unknown modifier, not that mechanism', () => {
    const parsed = parseSpf('v=spf1 include=x.example.com all=1');
    expect(parsed.errors).toEqual([]);
    expect(parsed.warnings).toEqual([expect.stringMatching(/^no all mechanism or redirect/)]);
  });

  it('replaces control characters in what it echoes', () => {
    expect(errorsOf('v=spf1 bad\u0007:x')).toEqual(['"bad?:x" is not a valid term']);
  });
});

describe('expandDomainSpec', () => {
  it.each([
    ['%{d}', 'mail.example.com'],
    ['_spf.%{d2}', '_spf.example.com'],
    ['%{dr}', 'com.example.mail'],
    ['%{d1r}.x.org', 'mail.x.org'],
    ['%{d}.', 'mail.example.com'],
    ['A%%B.Example.COM', 'a%b.example.com'],
  ])('expands %s', (spec, expected) => {
    expect(expandDomainSpec(spec, 'mail.example.com')).toBe(expected);
  });

  it('gives null for a spec that depends on the sender', () => {
    expect(expandDomainSpec('%{i}._spf.%{d}', 'example.com')).toBeNull();
    expect(expandDomainSpec('%{l}.example.com', 'example.com')).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------------
// The lookup counter against a model
// ---------------------------------------------------------------------------------------------------------

type Term = { kind: 'include'; to: number } | { kind: 'a' | 'mx' | 'exists' | 'ptr' | 'void' | 'ip4' | 'all' };
interface Node {
  terms: Term[];
  redirect: number | null;
}

const nameOf = (i: number) => `d${i}.test`;
const TEXT: Record<Exclude<Term['kind'], 'include'>, string> = {
  a: 'a:host.test',
  mx: 'mx:host.test',
  exists: 'exists:host.test',
  ptr: 'ptr',
  void: 'a:nx.test',
  ip4: 'ip4:192.0.2.0/24',
  all: '-all',
};
const recordOf = (node: Node) =>
  [
    'v=spf1',
    ...node.terms.map((t) => (t.kind === 'include' ? `include:${nameOf(t.to)}` : TEXT[t.kind])),
    ...(node.redirect === null ? [] : [`redirect=${nameOf(node.redirect)}`]),
  ].join(' ');

/** DNS from the graph: each node's record, host.test with an address and one MX, nothing else. */
function graphResolver(graph: Node[]): SpfResolver {
  return {
    async query(name, type) {
      const node = /^d(\d+)\.test$/.exec(name);
      if (type === 'TXT' && node)
        return { status: 'found', records: [recordOf(defined(graph[Number(node[1])], name))] };
      if (name === 'host.test' && type !== 'TXT') return { status: 'found', records: ['x'] };
      return { status: 'void' };
    },
  };
}

const QUERYING = new Set(['include', 'a', 'mx', 'exists', 'ptr', 'void']);

/** The terms a receiver evaluates in a node (up to `all`), and its redirect when it has no `all`. */
function evaluated(node: Node): { terms: Term[]; redirect: number | null } {
  const all = node.terms.findIndex((t) => t.kind === 'all');
  return {
    terms: all < 0 ? node.terms : node.terms.slice(0, all),
    redirect: all < 0 ? node.redirect : null,
  };
}

/** Every lookup of a full evaluation, nothing cut: Infinity when a loop is reachable (or past 1000). */
function fullCount(graph: Node[], i: number, stack: number[]): number {
  if (stack.includes(i)) return Number.POSITIVE_INFINITY;
  const { terms, redirect } = evaluated(defined(graph[i], `node ${i}`));
  let count = 0;
  for (const t of terms) {
    if (t.kind === 'include') count += 1 + fullCount(graph, t.to, [...stack, i]);
    else if (QUERYING.has(t.kind)) count += 1;
    if (count > 1000) return count;
  }
  if (redirect !== null) count += 1 + fullCount(graph, redirect, [...stack, i]);
  return count;
}

/** The rule as specified, on the graph: count every term, follow (and ask) only while within the limit. */
function modelSeen(graph: Node[]): { count: number; voids: number; loop: boolean } {
  const seen = { count: 0, voids: 0, loop: false };
  const visit = (i: number, stack: number[]) => {
    const { terms, redirect } = evaluated(defined(graph[i], `node ${i}`));
    const follow = (to: number) => {
      if (stack.includes(to)) seen.loop = true;
      else visit(to, [...stack, to]);
    };
    for (const t of terms) {
      if (!QUERYING.has(t.kind)) continue;
      seen.count++;
      if (seen.count > 10) continue;
      if (t.kind === 'include') follow(t.to);
      if (t.kind === 'void') seen.voids++;
    }
    if (redirect !== null && ++seen.count <= 10) follow(redirect);
  };
  visit(0, [0]);
  return seen;
}

const graphArb = fc.integer({ min: 1, max: 6 }).chain((size) => {
  const target = fc.integer({ min: 0, max: size - 1 });
  const term: fc.Arbitrary<Term> = fc.oneof(
    { weight: 3, arbitrary: target.map((to) => ({ kind: 'include' as const, to })) },
    {
      weight: 5,
      arbitrary: fc.constantFrom('a', 'mx', 'exists', 'ptr', 'void', 'ip4', 'all').map((kind) => ({ kind })),
    },
  );
  const node = fc.record({
    terms: fc.array(term, { maxLength: 5 }),
    redirect: fc.option(target, { freq: 4 }),
  });
  return fc.array(node, { minLength: size, maxLength: size });
});

describe('checkSpf', () => {
  it('neither counts nor follows a modifier named like a mechanism', async () => {
    const resolver: SpfResolver = {
      query: async (name, type) =>
        name === 'example.com' && type === 'TXT'
          ? { status: 'found', records: ['v=spf1 include=other.example.com -all'] }
          : { status: 'void' },
    };
    const result = await checkSpf('example.com', resolver);
    expect(result).toMatchObject({ valid: true, dns_lookup_count: 0, errors: [] });
  });
});

describe('checkSpf lookup counting (model)', () => {
  it('counts every lookup of a full evaluation when within the limit, and more than 10 otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(graphArb, async (graph) => {
        const result = await checkSpf('d0.test', graphResolver(graph));
        const full = fullCount(graph, 0, []);
        const seen = modelSeen(graph);
        const tooMany = result.errors.some((e) => e.startsWith('too many DNS lookups'));
        const loop = result.errors.some((e) => /^(include|redirect) loop/.test(e));
        const tooManyVoids = result.errors.some((e) => e.startsWith('too many void lookups'));

        expect(result.dns_lookup_count).toBe(seen.count);
        expect(loop).toBe(seen.loop);
        expect(tooManyVoids).toBe(seen.voids > 2);
        if (full <= 10) {
          expect(result.dns_lookup_count).toBe(full);
          expect(tooMany).toBe(false);
          expect(result.valid).toBe(seen.voids <= 2);
        } else if (Number.isFinite(full)) {
          expect(result.dns_lookup_count).toBeGreaterThan(10);
          expect(result.dns_lookup_count).toBeLessThanOrEqual(full);
          expect(tooMany).toBe(true);
          expect(result.valid).toBe(false);
        } else {
          // A loop is reachable: the evaluation meets it, or goes over the limit before.
          expect(loop || tooMany).toBe(true);
          expect(result.valid).toBe(false);
        }
        expect(result.errors.length === 0).toBe(result.valid);
      }),
      { numRuns: 400 },
    );
  });
});
