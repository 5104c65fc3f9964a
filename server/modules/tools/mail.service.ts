/**
 * SPF (RFC 7208) and DMARC (RFC 7489) checks: the records are fetched through the server's own resolver
 * and analysed by the pure code of spf.ts and dmarc.ts. A check asks a bounded number of questions (spf.ts),
 * each with the DNS client's timeout, all within one time budget.
 */
import type { z } from 'zod';
import type {
  CheckDmarcRecordQuery,
  CheckSpfRecordQuery,
  ToolsDmarcCheck,
  ToolsSpfCheck,
} from '../../../contract/tools.contract';
import { upstreamFailed } from '../../errors';
import { isDmarcRecord, parseDmarc } from './dmarc';
import { DNS_TIMEOUT_MS, DnsUnreachable, queryDns } from './dns-client';
import { organisationalDomain } from './domains';
import { checkSpf, isDnsName, printable, type SpfAnswer, type SpfResolver } from './spf';
import type { Tools } from './tools';

/** The longest one check may spend on DNS; later questions fail as if unanswered. */
const CHECK_BUDGET_MS = 10_000;

/** The domain as asked: lower-case, without a trailing dot. */
const normalised = (domain: string) => domain.toLowerCase().replace(/\.$/, '');

/** Questions to the server's resolver for one check, as the answers the analysis reads. */
function mailResolver(tools: Tools): SpfResolver {
  const deadline = Date.now() + CHECK_BUDGET_MS;
  return {
    async query(name, type): Promise<SpfAnswer> {
      const left = deadline - Date.now();
      if (left <= 0) return { status: 'error', reason: 'the time budget of the check is spent' };
      // A name too long to exist (`_dmarc.` before a 250-character domain) has no records.
      if (!isDnsName(name)) return { status: 'void' };
      let response: Awaited<ReturnType<typeof queryDns>>;
      try {
        response = await queryDns(tools.resolver, name, type, { timeoutMs: Math.min(DNS_TIMEOUT_MS, left) });
      } catch (error) {
        return { status: 'error', reason: error instanceof DnsUnreachable ? 'no answer in time' : 'query failed' };
      }
      if (response.rcode === 'NXDOMAIN') return { status: 'void' };
      if (response.rcode !== 'NOERROR') return { status: 'error', reason: response.rcode };
      const records = response.answers
        .filter((record) => record.type === type)
        .map((record) => (type === 'MX' ? record.text.replace(/^\d+ /, '').replace(/\.$/, '') : record.text));
      return records.length > 0 ? { status: 'found', records } : { status: 'void' };
    },
  };
}

export async function checkSpfRecord(
  tools: Tools,
  query: z.infer<typeof CheckSpfRecordQuery>,
): Promise<z.infer<typeof ToolsSpfCheck>> {
  return checkSpf(normalised(query.domain), mailResolver(tools));
}

/** The DMARC records at `_dmarc.<domain>`; 502 when the question fails. */
async function dmarcRecords(resolver: SpfResolver, domain: string): Promise<string[]> {
  const answer = await resolver.query(`_dmarc.${domain}`, 'TXT');
  if (answer.status === 'error') {
    throw upstreamFailed(`DNS lookup of the TXT records of _dmarc.${domain} failed: ${answer.reason}`);
  }
  return answer.status === 'found' ? answer.records.filter(isDmarcRecord) : [];
}

/**
 * The DMARC record of `domain`, or failing that of its organisational domain (RFC 7489 6.6.3), whose `sp`
 * (else `p`) then governs the domain. Several records are an error: receivers apply none of them.
 */
export async function checkDmarcRecord(
  tools: Tools,
  query: z.infer<typeof CheckDmarcRecordQuery>,
): Promise<z.infer<typeof ToolsDmarcCheck>> {
  const domain = normalised(query.domain);
  const resolver = mailResolver(tools);
  let at = domain;
  let records = await dmarcRecords(resolver, domain);
  const organisational = organisationalDomain(domain);
  if (records.length === 0 && organisational !== domain) {
    at = organisational;
    records = await dmarcRecords(resolver, organisational);
  }
  const [raw] = records;
  if (raw === undefined) {
    const none = { policy: null, subdomain_policy: null, raw: null, tags: {}, warnings: [], errors: [] };
    return { domain, found: false, valid: false, ...none };
  }
  const record = parseDmarc(raw, at);
  const errors = [...record.errors];
  if (records.length > 1) {
    errors.unshift(
      `multiple DMARC records at _dmarc.${at} (${records.length}): receivers apply none of them (RFC 7489 6.6.3)`,
    );
  }
  const warnings = [...record.warnings];
  if (at !== domain) {
    warnings.unshift(
      `no DMARC record at _dmarc.${domain}: the record of the organisational domain ${at} applies, ` +
        `with its subdomain policy (${record.subdomainPolicy ?? 'invalid'})`,
    );
  }
  return {
    domain,
    found: true,
    valid: errors.length === 0,
    policy: record.policy,
    subdomain_policy: record.subdomainPolicy,
    raw: printable(raw, 2048),
    tags: record.tags,
    warnings,
    errors,
  };
}
