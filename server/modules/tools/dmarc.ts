/**
 * DMARC records (RFC 7489), without I/O: a record's tags validated into errors (the record is invalid) and warnings (valid but weak or odd). Records
 * are remote, untrusted text: parsed up to a size cap, echoed only through `printable`.
 */
import { organisationalDomain } from './domains';
import { printable } from './spf';

/** Characters of a record parsed; real records are a few hundred at most. */
const MAX_RECORD_CHARS = 2048;

/** A TXT record is a DMARC record when it starts with the `v=DMARC1` tag (RFC 7489 6.4, 6.6.3). */
export const isDmarcRecord = (text: string) => /^[vV][ \t]*=[ \t]*DMARC1[ \t]*(?:;|$)/.test(text);

export interface DmarcRecord {
  /** Every tag, lower-case name → value as written (trimmed). */
  tags: Record<string, string>;
  /** `p` when valid, lower-case. */
  policy: string | null;
  /** `sp` when valid, else `p` (subdomains inherit it, RFC 7489 6.3) when sp is absent. */
  subdomainPolicy: string | null;
  errors: string[];
  warnings: string[];
}

const POLICIES = ['none', 'quarantine', 'reject'];
const ALIGNMENTS = ['r', 's'];
const FAILURE_OPTIONS = ['0', '1', 'd', 's'];
const REPORT_FORMATS = ['afrf'];
const KNOWN_TAGS = new Set(['v', 'p', 'sp', 'pct', 'adkim', 'aspf', 'rua', 'ruf', 'fo', 'ri', 'rf']);
const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/i;

const oneOf = (allowed: string[]) => (value: string) =>
  allowed.includes(value.toLowerCase()) ? null : `must be one of ${allowed.join(', ')}`;
const listOf = (allowed: string[]) => (value: string) =>
  value.split(':').every((v) => allowed.includes(v.trim().toLowerCase()))
    ? null
    : `must be a colon-separated list of ${allowed.join(', ')}`;

/** The syntax of each known tag's value (RFC 7489 6.3); null when valid. */
const TAG_SYNTAX: Record<string, (value: string) => string | null> = {
  p: oneOf(POLICIES),
  sp: oneOf(POLICIES),
  adkim: oneOf(ALIGNMENTS),
  aspf: oneOf(ALIGNMENTS),
  pct: (value) => (/^\d{1,3}$/.test(value) && Number(value) <= 100 ? null : 'must be an integer from 0 to 100'),
  ri: (value) => (/^\d{1,10}$/.test(value) && Number(value) <= 0xffffffff ? null : 'must be a number of seconds'),
  fo: listOf(FAILURE_OPTIONS),
  rf: listOf(REPORT_FORMATS),
  rua: (value) => uriListProblem(value),
  ruf: (value) => uriListProblem(value),
};

/** A DMARC URI (RFC 7489 6.4): a URI with an optional size limit `!10m`; the URI and the limit apart. */
function splitUri(text: string): { uri: string; limitOk: boolean } {
  const bang = text.lastIndexOf('!');
  if (bang < 0) return { uri: text, limitOk: true };
  return { uri: text.slice(0, bang), limitOk: /^\d+[kmgt]?$/i.test(text.slice(bang + 1)) };
}

/** The host a mailto: URI sends reports to; null when the URI is not a valid mailto:. */
function mailtoHost(uri: string): string | null {
  const host = /^mailto:[^\s@,!]+@([^\s@,!?]+)(?:\?.*)?$/i.exec(uri)?.[1];
  return host !== undefined && HOSTNAME.test(host) ? host.toLowerCase() : null;
}

function uriListProblem(value: string): string | null {
  const uris = value.split(',').map((u) => u.trim());
  for (const text of uris) {
    const { uri, limitOk } = splitUri(text);
    const shown = printable(text, 80);
    if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(uri)) return `"${shown}" is not a URI (e.g. mailto:dmarc@example.com)`;
    if (!limitOk) return `"${shown}": the size limit after ! must be a number with an optional k, m, g or t`;
    if (/^mailto:/i.test(uri) && mailtoHost(uri) === null) return `"${shown}" is not a valid mailto: address`;
  }
  return null;
}

/** Warnings about report destinations: other schemes, and other domains that must authorise the reports. */
function destinationWarnings(tag: string, value: string, domain: string): string[] {
  const warnings: string[] = [];
  for (const text of value.split(',').map((u) => u.trim())) {
    const { uri } = splitUri(text);
    const host = mailtoHost(uri);
    if (!/^mailto:/i.test(uri)) {
      warnings.push(
        `${tag}: ${printable(uri, 80)} is not a mailto: URI; report senders are only required to support mailto:`,
      );
    } else if (host && organisationalDomain(host) !== organisationalDomain(domain)) {
      warnings.push(
        `${tag}: reports go to ${printable(host, 80)}, outside ${domain}: that domain must authorise them with a ` +
          `v=DMARC1 TXT record at ${domain}._report._dmarc.${printable(host, 80)} (RFC 7489 7.1), not verified here`,
      );
    }
  }
  return warnings;
}

/** The tags of a DMARC record published for `domain`, validated (RFC 7489 6.3, 6.4). */
export function parseDmarc(record: string, domain: string): DmarcRecord {
  const errors: string[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  if (record.length > MAX_RECORD_CHARS) errors.push(`record longer than ${MAX_RECORD_CHARS} characters`);
  for (const part of record.slice(0, MAX_RECORD_CHARS).split(';')) {
    if (part.trim() === '') continue;
    const tag = /^[ \t]*([a-z][a-z0-9_]*)[ \t]*=(.*)$/is.exec(part);
    if (!tag) {
      errors.push(`"${printable(part.trim(), 60)}" is not a tag=value pair`);
      continue;
    }
    const [, tagName = '', tagValue = ''] = tag;
    const name = tagName.toLowerCase();
    const value = printable(tagValue.trim(), 512);
    if (seen.has(name)) {
      errors.push(`duplicate tag ${name}`);
      continue;
    }
    seen.set(name, value);
    if (!KNOWN_TAGS.has(name)) {
      warnings.push(`unknown tag ${name} (ignored by receivers)`);
      continue;
    }
    const problem = TAG_SYNTAX[name]?.(value);
    if (problem) errors.push(`${name}=${printable(value, 80)}: ${problem}`);
  }

  const tags: Record<string, string> = Object.fromEntries(seen);
  /** The tag's value when it is given and well formed. */
  const valid = (name: string) => {
    const value = tags[name];
    return value !== undefined && !TAG_SYNTAX[name]?.(value) ? value : undefined;
  };
  const p = valid('p');
  const sp = valid('sp');
  const pct = valid('pct');
  const policy = p !== undefined ? p.toLowerCase() : null;
  const subdomainPolicy = sp !== undefined ? sp.toLowerCase() : tags.sp === undefined ? policy : null;
  if (tags.p === undefined) errors.push('p tag missing: it is required (RFC 7489 6.3)');
  if (policy === 'none') warnings.push('p=none: monitoring only, receivers take no action on failing mail');
  if (pct !== undefined && Number(pct) < 100) {
    warnings.push(`pct=${pct}: the policy applies to ${pct}% of failing mail only`);
  }
  if (tags.rua === undefined) warnings.push('no rua tag: no aggregate reports will be sent');
  for (const tag of ['rua', 'ruf']) {
    const value = valid(tag);
    if (value !== undefined) warnings.push(...destinationWarnings(tag, value, domain));
  }
  if (tags.fo !== undefined && tags.ruf === undefined) warnings.push('fo has no effect without ruf');
  return { tags, policy, subdomainPolicy, errors, warnings };
}
