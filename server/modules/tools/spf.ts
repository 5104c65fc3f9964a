/**
 * SPF records (RFC 7208), without I/O: the syntax of a record's terms, and a static evaluation that follows
 * include and redirect to count the DNS-querying terms against the limit of 10 and the void lookups against 2,
 * and finds loops. DNS is injected (`SpfResolver`) so the counting can be checked against a model.
 *
 * No connecting IP is known, so the evaluation assumes the worst case a receiver can meet: no mechanism
 * matches, so every term before `all` is evaluated (RFC 7208 4.6.2, 5.1). Terms that depend on the sender
 * (macros other than %{d}, and `ptr`) are counted but not asked. Records are remote, untrusted text: they are
 * parsed up to a size cap, and echoed only through `printable`.
 */
import type { z } from 'zod';
import type { ToolsSpfCheck } from '../../../contract/tools.contract';
import { upstreamFailed } from '../../errors';
import { parseIp } from '../../ipam';

export type SpfCheck = z.infer<typeof ToolsSpfCheck>;
export type SpfTerm = SpfCheck['mechanisms'][number];

/** What one DNS question gave: records, a void lookup (NXDOMAIN or no record of the type), or a failure. */
export type SpfAnswer =
  | { status: 'found'; records: string[] }
  | { status: 'void' }
  | { status: 'error'; reason: string };

/** Asks one question; MX answers are the exchanges' names, TXT answers each record's strings joined. */
export interface SpfResolver {
  query(name: string, type: 'TXT' | 'A' | 'AAAA' | 'MX'): Promise<SpfAnswer>;
}

/** RFC 7208 4.6.4: at most 10 DNS-querying terms, 2 void lookups, 10 MX targets per `mx`. */
export const SPF_LOOKUP_LIMIT = 10 as const;
export const SPF_VOID_LIMIT = 2;
const MX_TARGET_LIMIT = 10;
/** Questions asked in one check, whatever the records say (the lookup limit keeps a real count near 22). */
const MAX_QUESTIONS = 40;
/** Characters of a record parsed; a real record is far below (RFC 7208 3.4 advises 450 octets). */
const MAX_RECORD_CHARS = 4096;
const ADVISED_RECORD_OCTETS = 450;
/** Messages kept per list, so a hostile record cannot make a huge response. */
const MAX_MESSAGES = 50;

const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
/** The terms that cost a DNS lookup (RFC 7208 4.6.4); redirect is counted when it is followed. */
const QUERYING = new Set(['include', 'a', 'mx', 'ptr', 'exists']);

/** Remote text fit to echo: control characters replaced, at most `max` characters. */
export function printable(text: string, max = 100): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** A DNS name that can be asked: labels of 1 to 63 characters, at most 253 in all (trailing dot aside). */
export function isDnsName(name: string): boolean {
  const bare = name.replace(/\.$/, '');
  return bare.length > 0 && bare.length <= 253 && bare.split('.').every((l) => l.length > 0 && l.length <= 63);
}

/** A TXT record is an SPF record when it starts with exactly `v=spf1` and a space or its end (RFC 7208 4.5). */
const isSpfRecord = (text: string) => /^v=spf1(?: |$)/i.test(text);

// ---------------------------------------------------------------------------------------------------------
// Syntax
// ---------------------------------------------------------------------------------------------------------

/** A term as parsed, with its syntax problem (null when valid). */
interface ParsedTerm extends SpfTerm {
  /** The term as written, without its qualifier, for messages. */
  text: string;
  /** A modifier (`name=value`); a modifier named like a mechanism (`all=x`) is not that mechanism. */
  modifier: boolean;
  problem: string | null;
  /** The domain-spec of a/mx/ptr/include/exists/redirect without the CIDR lengths; null for none. */
  spec: string | null;
}

export interface ParsedSpf {
  terms: ParsedTerm[];
  errors: string[];
  warnings: string[];
}

/** `%{d2r.}`: a macro letter, optional digits and `r`, optional delimiters (RFC 7208 7.1). */
const MACRO = /^%\{([a-z])(\d*)(r?)([-.+,/_=]*)\}/i;
const MACRO_LETTERS = 'slodiphv';
/** Allowed only in explanation text, never in a domain-spec (RFC 7208 7.1). */
const EXP_LETTERS = 'crt';
/** RFC 7208 7.1 toplabel: alphanumeric with at least one letter, or alphanumeric around inner hyphens. */
const TOPLABEL = /^(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;
const CIDR4 = /^(?:0|[1-9]\d?)$/;
const CIDR6 = /^(?:0|[1-9]\d{0,2})$/;

/** A literal character, an escape (`%%`, `%_`, `%-`) or a macro. */
type MacroToken =
  | { literal: string; escape?: true }
  | { letter: string; digits: string; reverse: boolean; delimiters: string };

/** A macro-string as tokens, or its problem. Letters c, r and t only where `expLetters`. */
function macroTokens(text: string, expLetters: boolean): MacroToken[] | string {
  const tokens: MacroToken[] = [];
  for (let i = 0; i < text.length; ) {
    const char = text.charAt(i);
    if (char === '%') {
      const escaped = { '%': '%', _: ' ', '-': '%20' }[text[i + 1] ?? ''];
      if (escaped !== undefined) {
        tokens.push({ literal: escaped, escape: true });
        i += 2;
        continue;
      }
      const macro = MACRO.exec(text.slice(i));
      if (!macro) return `invalid macro at "${printable(text.slice(i), 20)}"`;
      // Every group of MACRO takes part in a match (some may be empty).
      const [whole, name = '', digits = '', reverse = '', delimiters = ''] = macro;
      const letter = name.toLowerCase();
      if (!MACRO_LETTERS.includes(letter) && !(expLetters && EXP_LETTERS.includes(letter))) {
        return `macro %{${letter}} is not allowed here`;
      }
      if (digits !== '' && (Number(digits) === 0 || Number(digits) > 128)) {
        return `macro ${printable(whole, 20)}: the digit transformer must be 1 to 128`;
      }
      tokens.push({ letter, digits, reverse: reverse !== '', delimiters });
      i += whole.length;
      continue;
    }
    const code = char.charCodeAt(0);
    if (code < 0x21 || code > 0x7e) return 'a character that is not printable ASCII';
    tokens.push({ literal: char });
    i++;
  }
  return tokens;
}

/** The problem of a domain-spec (RFC 7208 7.1): a macro-string ending with `.toplabel` or a macro; null if valid. */
function domainSpecProblem(spec: string): string | null {
  if (spec === '') return 'the domain is missing';
  const tokens = macroTokens(spec, false);
  if (typeof tokens === 'string') return tokens;
  const last = tokens.at(-1);
  // domain-end: a macro-expand, or "." toplabel [ "." ] (the spec is not empty, so it has a last token)
  if (last === undefined || !('literal' in last) || last.escape) return null;
  const name = spec.replace(/\.$/, '');
  const dot = name.lastIndexOf('.');
  const top = name.slice(dot + 1);
  if (dot < 0 || !TOPLABEL.test(top)) return 'not a fully qualified domain name';
  if (tokens.every((token) => 'literal' in token) && !isDnsName(name)) return 'not a valid domain name';
  return null;
}

/** The problem of a mechanism's argument (`rest`: what follows its name, from `:` or `/`); null if valid. */
function argumentProblem(name: string, rest: string): { problem: string | null; spec: string | null } {
  const domainAndCidr = /^(.*?)(?:\/([^/]*))?(?:\/\/([^/]*))?$/.exec(rest);
  switch (name) {
    case 'all':
      return { problem: rest === '' ? null : 'takes no argument', spec: null };
    case 'include':
    case 'exists': {
      if (!rest.startsWith(':')) return { problem: `needs a domain, as in ${name}:example.com`, spec: null };
      const spec = rest.slice(1);
      return { problem: domainSpecProblem(spec), spec };
    }
    case 'ptr': {
      if (rest !== '' && !rest.startsWith(':')) return { problem: 'takes only a domain', spec: null };
      const spec = rest === '' ? null : rest.slice(1);
      return { problem: spec === null ? null : domainSpecProblem(spec), spec };
    }
    case 'a':
    case 'mx': {
      const [, domainPart, v4, v6] = domainAndCidr ?? [];
      if (domainPart === undefined || (domainPart !== '' && !domainPart.startsWith(':'))) {
        return { problem: 'invalid argument', spec: null };
      }
      if (v4 !== undefined && (!CIDR4.test(v4) || Number(v4) > 32)) {
        return { problem: `/${printable(v4, 10)} is not an IPv4 prefix length (0-32)`, spec: null };
      }
      if (v6 !== undefined && (!CIDR6.test(v6) || Number(v6) > 128)) {
        return { problem: `//${printable(v6, 10)} is not an IPv6 prefix length (0-128)`, spec: null };
      }
      const spec = domainPart === '' ? null : domainPart.slice(1);
      return { problem: spec === null ? null : domainSpecProblem(spec), spec };
    }
    case 'ip4':
    case 'ip6': {
      const version = name === 'ip4' ? 4 : 6;
      const [address = '', length, ...more] = rest.slice(1).split('/');
      const lengthOk =
        length === undefined ||
        ((version === 4 ? CIDR4 : CIDR6).test(length) && Number(length) <= (version === 4 ? 32 : 128));
      if (!rest.startsWith(':') || parseIp(address)?.version !== version || !lengthOk || more.length > 0) {
        return { problem: `not a valid IPv${version} address or network`, spec: null };
      }
      return { problem: null, spec: null };
    }
    default:
      return { problem: 'unknown mechanism', spec: null };
  }
}

/** The terms of an SPF record (its `v=spf1` first), each with its syntax problem, and the record's findings. */
export function parseSpf(record: string): ParsedSpf {
  const errors: string[] = [];
  const warnings: string[] = [];
  const terms: ParsedTerm[] = [];
  if (record.length > MAX_RECORD_CHARS) errors.push(`record longer than ${MAX_RECORD_CHARS} characters`);
  const modifiersSeen = new Set<string>();
  for (const token of record.slice(0, MAX_RECORD_CHARS).split(' ').filter(Boolean).slice(1)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(token);
    if (modifier) {
      const [, modifierName = '', value = ''] = modifier;
      const name = modifierName.toLowerCase();
      let problem: string | null;
      if (name === 'redirect' || name === 'exp') {
        problem = modifiersSeen.has(name) ? 'appears more than once' : domainSpecProblem(value);
        modifiersSeen.add(name);
      } else {
        // Unknown modifiers are allowed and ignored (RFC 7208 6), but must still be well formed.
        const tokens = macroTokens(value, true);
        problem = typeof tokens === 'string' ? tokens : null;
      }
      terms.push({
        qualifier: '+',
        mechanism: name,
        value: printable(value, 255),
        text: `${name}=${value}`,
        modifier: true,
        problem,
        spec: value,
      });
      continue;
    }
    const mechanism = /^([-+~?]?)([a-z][a-z0-9_.-]*)([:/].*)?$/i.exec(token);
    if (!mechanism) {
      errors.push(`"${printable(token, 60)}" is not a valid term`);
      continue;
    }
    const qualifier = (mechanism[1] || '+') as SpfTerm['qualifier'];
    const [, , mechanismName = '', rest = ''] = mechanism;
    const name = mechanismName.toLowerCase();
    const { problem, spec } = MECHANISMS.has(name)
      ? argumentProblem(name, rest)
      : { problem: 'unknown mechanism', spec: null };
    const value = rest === '' ? null : printable(rest.startsWith(':') ? rest.slice(1) : rest, 255);
    terms.push({ qualifier, mechanism: name, value, text: `${name}${rest}`, modifier: false, problem, spec });
  }

  for (const term of terms) {
    if (term.problem) errors.push(`${printable(term.text, 80)}: ${term.problem}`);
  }
  warnings.push(...findings(terms));
  return { terms, errors: errors.slice(0, MAX_MESSAGES), warnings };
}

const isMechanism = (name: string) => (t: ParsedTerm) => !t.modifier && t.mechanism === name;
const isModifier = (name: string) => (t: ParsedTerm) => t.modifier && t.mechanism === name;

/** Valid but risky or useless constructions (RFC 7208 5.1, 5.5, 6.1). */
function findings(terms: ParsedTerm[]): string[] {
  const warnings: string[] = [];
  const allIndex = terms.findIndex(isMechanism('all'));
  const all = terms[allIndex];
  const hasRedirect = terms.some(isModifier('redirect'));
  if (terms.some(isMechanism('ptr'))) {
    warnings.push(
      'ptr is deprecated (RFC 7208 5.5): slow and unreliable, and many receivers ignore it; use ip4, ip6, a or mx',
    );
  }
  if (all?.qualifier === '+')
    warnings.push('+all passes mail from any server on the Internet: the record protects nothing');
  if (all?.qualifier === '?')
    warnings.push('?all gives a neutral result for unlisted servers: little protection; prefer ~all or -all');
  if (!all && !hasRedirect) {
    warnings.push(
      'no all mechanism or redirect: unlisted servers get a neutral result; end the record with ~all or -all',
    );
  }
  if (all && hasRedirect) warnings.push('redirect is ignored because the record has an all mechanism (RFC 7208 6.1)');
  if (all && terms.slice(allIndex + 1).some((t) => !t.modifier)) {
    warnings.push('mechanisms after all are never evaluated (RFC 7208 5.1)');
  }
  return warnings;
}

// ---------------------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------------------

/** The name a domain-spec designates while evaluating `domain`; null when it depends on the sender. */
export function expandDomainSpec(spec: string, domain: string): string | null {
  const tokens = macroTokens(spec, false);
  if (typeof tokens === 'string') return null;
  let name = '';
  for (const token of tokens) {
    if ('literal' in token) name += token.literal;
    else if (token.letter === 'd') name += expandD(domain, token);
    else return null;
  }
  name = name.toLowerCase().replace(/\.$/, '');
  // RFC 7208 7.3: an expansion over 253 characters loses labels on the left until it fits.
  while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
  return name;
}

function expandD(domain: string, token: { digits: string; reverse: boolean; delimiters: string }): string {
  const delimiters = token.delimiters || '.';
  let parts = domain.split(new RegExp(`[${delimiters.replace(/[-\\\]^]/g, '\\$&')}]`));
  if (token.reverse) parts = parts.reverse();
  if (token.digits !== '') parts = parts.slice(-Number(token.digits));
  return parts.join('.');
}

class Evaluation {
  lookups = 0;
  voids = 0;
  questions = 0;
  readonly errors: string[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly resolver: SpfResolver) {}

  async ask(name: string, type: 'TXT' | 'A' | 'AAAA' | 'MX'): Promise<SpfAnswer> {
    if (!isDnsName(name)) return { status: 'error', reason: 'not a valid domain name' };
    if (this.questions >= MAX_QUESTIONS) return { status: 'error', reason: 'too many DNS questions in one check' };
    this.questions++;
    return this.resolver.query(name, type);
  }

  error(message: string) {
    if (this.errors.length < MAX_MESSAGES) this.errors.push(message);
  }

  warn(message: string) {
    if (this.warnings.length < MAX_MESSAGES) this.warnings.push(message);
  }

  /** A void answer counts against the void limit; a failure is what a receiver would call a temperror. */
  settle(answer: SpfAnswer, what: string) {
    if (answer.status === 'void') this.voids++;
    if (answer.status === 'error')
      this.warn(`${what}: DNS error (${answer.reason}): a receiver would return temperror`);
  }
}

/**
 * Evaluates the terms of `parsed`, the record of `domain` reached through `chain` (the domains of the
 * includes and redirects from the checked domain, for loops). Every DNS-querying term is counted, but once the
 * count is over the limit nothing more is asked: the count reported is what the records already fetched hold.
 * Nesting needs a lookup per level, so the limit also bounds the depth.
 */
async function walk(ev: Evaluation, domain: string, parsed: ParsedSpf, chain: string[]): Promise<void> {
  const where = chain.length > 1 ? `${domain}: ` : '';
  for (const term of parsed.terms) {
    if (term.modifier) continue;
    if (term.mechanism === 'all') break;
    if (!QUERYING.has(term.mechanism)) continue;
    ev.lookups++;
    if (ev.lookups > SPF_LOOKUP_LIMIT || term.problem) continue;
    const target = term.spec === null ? domain : expandDomainSpec(term.spec, domain);
    const shown = `${where}${term.mechanism}:${printable(target ?? term.spec ?? '', 80)}`;
    if (term.mechanism === 'include') await follow(ev, 'include', term, domain, chain);
    else if (target === null || term.mechanism === 'ptr') {
      // Depends on the sender or on the connecting IP's PTR records: counted, not asked.
    } else if (term.mechanism === 'a') {
      let answer = await ev.ask(target, 'A');
      if (answer.status === 'void') answer = await ev.ask(target, 'AAAA');
      ev.settle(answer, shown);
    } else if (term.mechanism === 'mx') {
      const answer = await ev.ask(target, 'MX');
      ev.settle(answer, shown);
      if (answer.status === 'found' && answer.records.length > MX_TARGET_LIMIT) {
        ev.error(
          `${shown} has ${answer.records.length} MX records, over the limit of ${MX_TARGET_LIMIT} (RFC 7208 4.6.4): permerror`,
        );
      }
    } else if (term.mechanism === 'exists') {
      ev.settle(await ev.ask(target, 'A'), shown);
    }
  }
  const redirect = parsed.terms.find(isModifier('redirect'));
  if (redirect && !parsed.terms.some(isMechanism('all'))) {
    ev.lookups++;
    if (ev.lookups <= SPF_LOOKUP_LIMIT && !redirect.problem) await follow(ev, 'redirect', redirect, domain, chain);
  }
}

/** Follows an include or a redirect: the target's single SPF record, evaluated in turn. */
async function follow(ev: Evaluation, kind: string, term: ParsedTerm, domain: string, chain: string[]) {
  const where = chain.length > 1 ? `${domain}: ` : '';
  const target = expandDomainSpec(term.spec ?? '', domain);
  if (target === null) {
    ev.warn(
      `${where}${kind}:${printable(term.spec ?? '', 80)} depends on the sender (macros): its lookups were not counted`,
    );
    return;
  }
  const shown = `${where}${kind}:${printable(target, 80)}`;
  if (chain.includes(target)) {
    ev.error(`${kind} loop: ${printable([...chain, target].join(' → '), 300)} (permerror)`);
    return;
  }
  const answer = await ev.ask(target, 'TXT');
  if (answer.status === 'error') {
    ev.warn(`${shown}: DNS error (${answer.reason}): its lookups were not counted; a receiver would return temperror`);
    return;
  }
  ev.settle(answer, shown);
  const records = answer.status === 'found' ? answer.records.filter(isSpfRecord) : [];
  const [record, ...others] = records;
  if (record === undefined || others.length > 0) {
    ev.error(`${shown} has ${records.length === 0 ? 'no SPF record' : `${records.length} SPF records`} (permerror)`);
    return;
  }
  const parsed = parseSpf(record);
  for (const message of parsed.errors) ev.error(`${printable(target, 80)}: ${message}`);
  for (const message of parsed.warnings) ev.warn(`${printable(target, 80)}: ${message}`);
  await walk(ev, target, parsed, [...chain, target]);
}

/**
 * The SPF check of `domain`: its single `v=spf1` TXT record, parsed and evaluated. Throws 502 when the
 * domain's own TXT question fails (no answer, SERVFAIL …); NXDOMAIN or no SPF record is `found: false`.
 */
export async function checkSpf(domain: string, resolver: SpfResolver): Promise<SpfCheck> {
  const ev = new Evaluation(resolver);
  const answer = await ev.ask(domain, 'TXT');
  if (answer.status === 'error')
    throw upstreamFailed(`DNS lookup of the TXT records of ${domain} failed: ${answer.reason}`);
  const records = answer.status === 'found' ? answer.records.filter(isSpfRecord) : [];
  const [record] = records;
  const result = {
    domain,
    found: record !== undefined,
    raw: record !== undefined ? printable(record, MAX_RECORD_CHARS) : null,
    dns_lookup_limit: SPF_LOOKUP_LIMIT,
  };
  if (record === undefined) {
    return { ...result, valid: false, mechanisms: [], dns_lookup_count: 0, warnings: [], errors: [] };
  }
  const parsed = parseSpf(record);
  const mechanisms = parsed.terms.map(({ qualifier, mechanism, value }) => ({ qualifier, mechanism, value }));
  if (records.length > 1) {
    // RFC 7208 4.5: more than one record is a permerror; which one is meant cannot be known, so none is evaluated.
    const errors = [
      `multiple SPF records (${records.length}): a domain must publish exactly one (RFC 7208 4.5), so receivers return permerror`,
    ];
    return { ...result, valid: false, mechanisms, dns_lookup_count: 0, warnings: [], errors };
  }
  ev.errors.push(...parsed.errors);
  ev.warnings.push(...parsed.warnings);
  if (Buffer.byteLength(record) > ADVISED_RECORD_OCTETS) {
    ev.warn(
      `the record is longer than ${ADVISED_RECORD_OCTETS} octets: its DNS answer may not fit in UDP (RFC 7208 3.4)`,
    );
  }
  await walk(ev, domain, parsed, [domain]);
  // The limits' verdicts always show, after at most MAX_MESSAGES details.
  const errors = [...ev.errors];
  if (ev.lookups > SPF_LOOKUP_LIMIT) {
    errors.push(
      `too many DNS lookups: ${ev.lookups} counted, over the limit of ${SPF_LOOKUP_LIMIT} (RFC 7208 4.6.4): permerror`,
    );
  }
  if (ev.voids > SPF_VOID_LIMIT) {
    errors.push(`too many void lookups: ${ev.voids}, over the limit of ${SPF_VOID_LIMIT} (RFC 7208 4.6.4): permerror`);
  }
  return {
    ...result,
    valid: errors.length === 0,
    mechanisms,
    dns_lookup_count: ev.lookups,
    warnings: ev.warnings,
    errors,
  };
}
