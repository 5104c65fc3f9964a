/**
 * Pure reading of what whois servers and RDAP services answer: the referral to follow, and the fields of
 * /tools/whois (domains: registrar, dates, nameservers, status; networks: CIDR, name, organisation, abuse
 * contact) and of /tools/asn's RDAP fallback. Every input is untrusted remote text: nothing here throws on
 * odd input, and anything not understood is left out.
 */
import { BITS, type Cidr, formatCidr, type IpVersion, parseCidr, parseIp, rangeToBlocks } from '../../ipam';

export type Parsed = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------------------

/** Remote text made safe to echo: CRLF to LF, every control character but newline and tab removed. */
export function cleanText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** One `key: value` line of an answer; the key lower-case, without surrounding blanks. */
export interface Entry {
  key: string;
  value: string;
}

/** Keys are words (letters, digits, blanks, `-_/()`), never dots: `ns1.example.net 2001:db8::1` is no key. */
const KEY_VALUE = /^(\s*)([A-Za-z][A-Za-z0-9 _/()-]{0,60}?)\s*:(?!\/\/)\s*(.*?)\s*$/;

/** RWhois writes `network:IP-Network:192.0.2.0/26` and `network:Organization;I:Example` (class:attribute[;type]:value). */
const RWHOIS_ATTRIBUTE = /^[a-z][a-z0-9-]*:([A-Za-z][A-Za-z0-9-]*)(?:;[A-Za-z]+)?:(?!\/\/)(.*)$/;

/**
 * The answer as paragraphs (objects, split at blank lines) of entries. Comment lines (`%`, `#`, `>>>`) are
 * skipped. A key with no value heads a section (`Name servers:` then indented lines): each indented line
 * without a key is a value of the section's key, and an indented `Name: X` is also `<section> name: X`.
 */
function paragraphs(text: string): Entry[][] {
  const result: Entry[][] = [];
  let current: Entry[] = [];
  let section: { key: string; indent: number } | null = null;
  for (const line of cleanText(text).split('\n')) {
    if (line.trim() === '') {
      if (current.length > 0) result.push(current);
      current = [];
      section = null;
      continue;
    }
    if (/^\s*(%|#|>>>)/.test(line)) continue;
    const indent = /^\s*/.exec(line)?.[0].length ?? 0;
    if (section && indent <= section.indent) section = null;
    const rwhois = RWHOIS_ATTRIBUTE.exec(line);
    if (rwhois) {
      const [, key = '', value = ''] = rwhois;
      current.push({ key: key.toLowerCase(), value: value.trim() });
      continue;
    }
    const match = KEY_VALUE.exec(line);
    if (match) {
      const [, , keyText = '', valueText = ''] = match;
      const key = keyText.trim().toLowerCase().replace(/\s+/g, ' ');
      const value = valueText.trim();
      current.push({ key, value });
      if (section) current.push({ key: `${section.key} ${key}`, value });
      else if (value === '') section = { key, indent };
    } else if (section) {
      current.push({ key: section.key, value: line.trim() });
    }
  }
  if (current.length > 0) result.push(current);
  return result;
}

const valuesOf = (entries: Entry[], keys: string[]) =>
  keys.flatMap((key) => entries.filter((e) => e.key === key && e.value !== '').map((e) => e.value));

/** The non-empty values of any of `keys`, in the answer's order (for lists). */
const allOf = (entries: Entry[], keys: string[]) =>
  entries.filter((e) => keys.includes(e.key) && e.value !== '').map((e) => e.value);

/** The first non-empty value of the first of `keys` (in priority order) present. */
const firstOf = (entries: Entry[], keys: string[]): string | undefined => valuesOf(entries, keys)[0];

// ---------------------------------------------------------------------------------------------------------
// Referrals
// ---------------------------------------------------------------------------------------------------------

export interface WhoisServer {
  host: string;
  port: number;
  /** RWhois (ARIN's `rwhois://` referrals) ends its answer with `%ok` instead of closing. */
  protocol: 'whois' | 'rwhois';
}

const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `host`, `host:port`, `[v6]:port` or a v6 literal, as a server (port `defaultPort` unless given). */
function serverAt(text: string, protocol: WhoisServer['protocol'], defaultPort: number): WhoisServer | null {
  const value = text.trim().replace(/\/+$/, '').toLowerCase();
  if (parseIp(value)) return { host: value, port: defaultPort, protocol };
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]/]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return null;
  const [, literal, name, portText] = match;
  const named = literal ?? name;
  if (named === undefined) return null;
  const host = named.replace(/\.$/, '');
  const port = portText === undefined ? defaultPort : Number(portText);
  // A referral names a server: an address, or a name with at least one dot.
  const valid = literal ? parseIp(host) !== null : HOST.test(host) && host.includes('.');
  return valid && port >= 1 && port <= 65535 ? { host, port, protocol } : null;
}

/** A referral's value: a host (port 43), or a `whois://host[:port]` or `rwhois://host[:port]` URL; http is no referral. */
function referralValue(value: string): WhoisServer | null {
  const url = /^([a-z]+):\/\/(.*)$/i.exec(value.trim());
  if (!url) return serverAt(value, 'whois', 43);
  const [, schemeText = '', rest = ''] = url;
  const scheme = schemeText.toLowerCase();
  if (scheme === 'whois') return serverAt(rest, 'whois', 43);
  if (scheme === 'rwhois') return serverAt(rest, 'rwhois', 4321);
  return null;
}

/** Keys naming the next server: IANA's `refer`, ARIN's `ReferralServer`, a thin registry's registrar server. */
const REFERRAL_KEYS = ['refer', 'referralserver', 'registrar whois server', 'whois server'];

/** The server an answer refers the question to, if any (the first usable referral line). */
export function whoisReferral(text: string): WhoisServer | null {
  const entries = paragraphs(text).flat();
  for (const value of valuesOf(entries, REFERRAL_KEYS)) {
    const server = referralValue(value);
    if (server) return server;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------------------------

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A registry's date as an instant: ISO 8601 (any precision, `Z`, an offset or none: UTC), `YYYY.MM.DD` and
 * `YYYY/MM/DD`, `DD-Mon-YYYY`, `DD.MM.YYYY`, LACNIC's `YYYYMMDD`, each with an optional time. Null when
 * the text is none of these.
 */
export function parseWhoisDate(text: string): Date | null {
  const value = text.trim().replace(/\s*\(.*\)$/, '');
  const day = DAY_FORMATS.map(([pattern, read]) => {
    const m = pattern.exec(value);
    return m && read(m);
  }).find((found) => found);
  if (!day) return null;
  const { y, mo, d, rest } = day;
  const time = /^(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(
    rest.trimEnd(),
  );
  if (!time || mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const [, hh = '0', mm = '0', ss = '0', zone = 'Z'] = time;
  const offset = /^[+-]/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(-2)}` : 'Z';
  const pad = (n: string | number) => String(n).padStart(2, '0');
  const date = new Date(`${y}-${pad(mo)}-${pad(d)}T${pad(hh)}:${pad(mm)}:${pad(ss)}${offset}`);
  // Date rolls 30 February over into March: a day the month does not have is no date.
  const calendar = new Date(Date.UTC(Number(y), mo - 1, d));
  if (Number.isNaN(date.getTime()) || calendar.getUTCDate() !== d) return null;
  return date;
}

/** The calendar day of a date's text (year, month, day) and what follows it (the time, if any). */
const DAY_FORMATS: [RegExp, (m: RegExpExecArray) => { y: string; mo: number; d: number; rest: string } | null][] = [
  // Every group of these patterns takes part in a match.
  [
    /^(\d{4})[-./](\d{1,2})[-./](\d{1,2})(.*)$/,
    ([, y = '', mo = '', d = '', rest = '']) => ({ y, mo: Number(mo), d: Number(d), rest }),
  ],
  [
    /^(\d{1,2})[-. ]([A-Za-z]{3})[A-Za-z]*[-. ](\d{4})(.*)$/,
    ([, d = '', month = '', y = '', rest = '']) => {
      const mo = MONTHS.indexOf(month.toLowerCase()) + 1;
      return mo === 0 ? null : { y, mo, d: Number(d), rest };
    },
  ],
  [
    /^(\d{1,2})\.(\d{1,2})\.(\d{4})(.*)$/,
    ([, d = '', mo = '', y = '', rest = '']) => ({ y, mo: Number(mo), d: Number(d), rest }),
  ],
  [/^(\d{4})(\d{2})(\d{2})$/, ([, y = '', mo = '', d = '']) => ({ y, mo: Number(mo), d: Number(d), rest: '' })],
];

/** `2026-08-13T04:00:00Z` (UTC, whole seconds). */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A date field: UTC ISO 8601 when the text is a date we read, else the text as given. */
const dateField = (text: string | undefined) => {
  if (text === undefined) return undefined;
  const date = parseWhoisDate(text);
  return date ? isoSeconds(date) : text;
};

/** Whole days from `now` to `expires` (rounded down; negative once expired). */
function daysUntil(expires: Date, now: Date): number {
  return Math.floor((expires.getTime() - now.getTime()) / 86_400_000);
}

// ---------------------------------------------------------------------------------------------------------
// Domains
// ---------------------------------------------------------------------------------------------------------

/** Key spellings, in priority order: ICANN/Verisign format first, then ccTLD registries (RIPE-like, Nominet …). */
const DOMAIN_KEYS = {
  registrar: ['registrar', 'registrar name', 'sponsoring registrar', 'registrar organization'],
  created: [
    'creation date',
    'created',
    'created on',
    'created date',
    'registered on',
    'registration time',
    'registration date',
    'domain registration date',
    'registered',
  ],
  expires: [
    'registry expiry date',
    'registrar registration expiration date',
    'expiration date',
    'expiry date',
    'expires',
    'expires on',
    'expire date',
    'expiration time',
    'paid-till',
    'domain expiration date',
    'renewal date',
  ],
  updated: ['updated date', 'last updated', 'last updated on', 'last modified', 'last-update', 'changed', 'modified'],
  nameservers: ['name server', 'nameserver', 'nameservers', 'name servers', 'nserver', 'dns'],
  status: ['domain status', 'status', 'state', 'registration status'],
};

const unique = <T>(values: T[]) => [...new Set(values)];

/** A nameserver value (`NS1.EXAMPLE.NET`, `ns1.example.ru. 192.0.2.1`) as a lower-case name, or null. */
function nameserver(value: string): string | null {
  const name = (value.split(/\s+/)[0] ?? '').toLowerCase().replace(/\.$/, '');
  return HOST.test(name) && name.includes('.') ? name : null;
}

/** Status values without their explanatory URL (`clientHold https://icann.org/epp#clientHold`); `A, B` split. */
function statuses(value: string): string[] {
  return value
    .replace(/\s+\(?https?:\/\/\S*\)?\s*$/i, '')
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The domain fields of one whois answer, each present only when found. */
export function parseWhoisDomain(text: string, now: Date): Parsed {
  const entries = paragraphs(text).flat();
  const nameservers = unique(allOf(entries, DOMAIN_KEYS.nameservers).flatMap((v) => nameserver(v) ?? []));
  const status = unique(allOf(entries, DOMAIN_KEYS.status).flatMap(statuses));
  return domainFields(
    {
      registrar: firstOf(entries, DOMAIN_KEYS.registrar),
      created: firstOf(entries, DOMAIN_KEYS.created),
      expires: firstOf(entries, DOMAIN_KEYS.expires),
      updated: firstOf(entries, DOMAIN_KEYS.updated),
      nameservers,
      status,
    },
    now,
  );
}

interface DomainFacts {
  registrar?: string;
  created?: string;
  expires?: string;
  updated?: string;
  nameservers: string[];
  status: string[];
}

/** The `parsed` object of a domain: dates normalised, expires_in_days from `now`, empty lists left out. */
function domainFields(facts: DomainFacts, now: Date): Parsed {
  const parsed: Parsed = {};
  if (facts.registrar) parsed.registrar = facts.registrar;
  const created = dateField(facts.created);
  if (created) parsed.created = created;
  const expires = dateField(facts.expires);
  if (expires) parsed.expires = expires;
  const expiresAt = facts.expires ? parseWhoisDate(facts.expires) : null;
  if (expiresAt) parsed.expires_in_days = daysUntil(expiresAt, now);
  const updated = dateField(facts.updated);
  if (updated) parsed.updated = updated;
  if (facts.nameservers.length > 0) parsed.nameservers = facts.nameservers;
  if (facts.status.length > 0) parsed.status = facts.status;
  return parsed;
}

// ---------------------------------------------------------------------------------------------------------
// IP networks
// ---------------------------------------------------------------------------------------------------------

/** LACNIC abbreviates IPv4 networks (`200.160.0/20`): missing octets are zero. */
function padIpv4(text: string): string {
  if (text.includes(':')) return text;
  const octets = text.split('.');
  return octets.length < 4 && octets.every((o) => /^\d{1,3}$/.test(o))
    ? [...octets, '0', '0', '0'].slice(0, 4).join('.')
    : text;
}

/** `a.b.c.d - e.f.g.h`, `a.b.c.d/n` (host bits tolerated) or a list of CIDRs, as the blocks they cover. */
export function networkBlocks(value: string): Cidr[] {
  const range = /^\s*([0-9A-Fa-f:.]+)\s*-\s*([0-9A-Fa-f:.]+)\s*$/.exec(value);
  if (range) {
    const [, from = '', to = ''] = range;
    const first = parseIp(padIpv4(from));
    const last = parseIp(padIpv4(to));
    if (!first || !last || first.version !== last.version || first.value > last.value) return [];
    const version: IpVersion = first.version;
    return rangeToBlocks({ first: first.value, last: last.value }, BITS[version]).map((b) => ({ version, ...b }));
  }
  return value.split(/[,\s]+/).flatMap((part) => {
    const [address = '', prefix] = part.split('/');
    const cidr = prefix === undefined ? null : parseCidr(`${padIpv4(address)}/${prefix}`);
    return cidr ? [cidr.cidr] : [];
  });
}

const blocksSize = (blocks: Cidr[]) => blocks.reduce((sum, b) => sum + (1n << BigInt(BITS[b.version] - b.prefix)), 0n);

/** Keys holding a network: RIPE/APNIC/AFRINIC/LACNIC inetnum(6), ARIN NetRange and CIDR, RWhois IP-Network. */
const NETWORK_KEYS = ['cidr', 'inetnum', 'inet6num', 'netrange', 'ip-network'];

/** ARIN writes `Organization: Google LLC (GOGL)`: the handle in brackets is dropped. */
const withoutHandle = (value: string) => value.replace(/\s*\([A-Z0-9-]+\)$/, '');

/** The network fields of one whois answer: the most specific network's CIDR(s), name, organisation, abuse e-mail. */
export function parseWhoisNetwork(text: string): Parsed {
  const objects = paragraphs(text);
  const networks = objects
    .map((entries) => ({ entries, blocks: networkBlocks(firstOf(entries, NETWORK_KEYS) ?? '') }))
    .filter((n) => n.blocks.length > 0);
  // The smallest network is the most specific (ARIN lists the allocation, then the reassignment).
  networks.sort((a, b) => {
    const [x, y] = [blocksSize(a.blocks), blocksSize(b.blocks)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const network = networks[0];
  const all = objects.flat();
  const parsed: Parsed = {};
  if (network) {
    parsed.cidr = network.blocks.map(formatCidr).join(', ');
    const name = firstOf(network.entries, ['netname', 'net name', 'network-name']);
    if (name) parsed.net_name = name;
  }
  const organization = networkOrganization(objects, network?.entries ?? [], all);
  if (organization) parsed.organization = organization;
  const abuse = abuseContact(text, objects, network?.entries ?? [], all);
  if (abuse) parsed.abuse_contact = abuse;
  return parsed;
}

function networkOrganization(objects: Entry[][], network: Entry[], all: Entry[]): string | undefined {
  // IANA's records name the organisation in the network's own object (RIPE's `organisation` is a handle elsewhere).
  const own = firstOf(network, ['organization', 'customer', 'owner', 'org-name', 'orgname', 'organisation']);
  if (own) return withoutHandle(own);
  // RIPE, APNIC and AFRINIC: the network's `org:` handle names an organisation object.
  const handle = firstOf(network, ['org']);
  const object = handle && objects.find((entries) => firstOf(entries, ['organisation']) === handle);
  return (
    (object && firstOf(object, ['org-name'])) ??
    firstOf(all, ['org-name', 'orgname', 'custname']) ??
    firstOf(network, ['descr'])
  );
}

const EMAIL = /[^\s'"<>(),;]+@[^\s'"<>(),;]+\.[A-Za-z]{2,}/;

function abuseContact(text: string, objects: Entry[][], network: Entry[], all: Entry[]): string | undefined {
  // RIPE, APNIC and AFRINIC state it in a comment: `% Abuse contact for '…' is 'abuse@example.net'`.
  const comment = /^%\s*Abuse contact for .*? is '([^']*)'/im.exec(cleanText(text))?.[1];
  if (comment && EMAIL.test(comment)) return comment;
  const direct = firstOf(all, ['rabuseemail', 'orgabuseemail', 'abuse-mailbox']);
  if (direct) return direct;
  // LACNIC: the network's abuse-c handle, and that contact's e-mail.
  const handle = firstOf(network, ['abuse-c']);
  const contact = handle && objects.find((entries) => firstOf(entries, ['nic-hdl', 'nic-hdl-br']) === handle);
  return (contact && firstOf(contact, ['e-mail', 'email'])) || undefined;
}

// ---------------------------------------------------------------------------------------------------------
// RDAP (RFC 9083)
// ---------------------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? cleanText(value).trim() : undefined;

/** The date of the first event with this action (`registration`, `expiration`, `last changed`). */
function eventDate(object: Json, action: string): string | undefined {
  const event = list(object.events).find((e) => isObject(e) && e.eventAction === action);
  return isObject(event) ? text(event.eventDate) : undefined;
}

/** A jCard property's value (`fn`, `email`) of an entity. */
function vcard(entity: Json, property: string): string | undefined {
  const [, properties] = list(entity.vcardArray);
  const found = list(properties).find((p) => Array.isArray(p) && p[0] === property);
  return Array.isArray(found) ? text(found[3]) : undefined;
}

/** Entities with a role, searched breadth-first through nested entities (ARIN nests abuse in the registrant). */
function entitiesWithRole(object: Json, role: string): Json[] {
  const found: Json[] = [];
  let level = list(object.entities).filter(isObject);
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    found.push(...level.filter((e) => list(e.roles).includes(role)));
    level = level.flatMap((e) => list(e.entities).filter(isObject));
  }
  return found;
}

const firstVcard = (entities: Json[], property: string) =>
  entities.map((e) => vcard(e, property)).find((v) => v !== undefined);

/** RDAP statuses (`client delete prohibited`, RFC 8056) written as EPP's (`clientDeleteProhibited`). */
const eppStatus = (status: string) =>
  status.toLowerCase().replace(/\s+([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The domain fields of an RDAP domain object, as parseWhoisDomain gives them. */
export function parseRdapDomain(json: unknown, now: Date): Parsed {
  if (!isObject(json)) return {};
  return domainFields(
    {
      registrar: firstVcard(entitiesWithRole(json, 'registrar'), 'fn'),
      created: eventDate(json, 'registration'),
      expires: eventDate(json, 'expiration'),
      updated: eventDate(json, 'last changed'),
      nameservers: unique(
        list(json.nameservers).flatMap((ns) => (isObject(ns) && nameserver(text(ns.ldhName) ?? '')) || []),
      ),
      status: unique(list(json.status).flatMap((s) => (typeof s === 'string' && s.trim() ? [eppStatus(s)] : []))),
    },
    now,
  );
}

/** The blocks of an RDAP ip network: the cidr0 extension's, else its start and end addresses. */
function rdapBlocks(json: Json): Cidr[] {
  const cidr0 = list(json.cidr0_cidrs).flatMap((c) => {
    if (!isObject(c)) return [];
    const prefix = text(c.v4prefix) ?? text(c.v6prefix);
    return prefix && typeof c.length === 'number' ? networkBlocks(`${prefix}/${c.length}`) : [];
  });
  if (cidr0.length > 0) return cidr0;
  const [start, end] = [text(json.startAddress), text(json.endAddress)];
  return start && end ? networkBlocks(`${start} - ${end}`) : [];
}

/** The network fields of an RDAP ip network object, as parseWhoisNetwork gives them. */
export function parseRdapNetwork(json: unknown): Parsed {
  if (!isObject(json)) return {};
  const parsed: Parsed = {};
  const blocks = rdapBlocks(json);
  if (blocks.length > 0) parsed.cidr = blocks.map(formatCidr).join(', ');
  const name = text(json.name);
  if (name) parsed.net_name = name;
  const organization = firstVcard(entitiesWithRole(json, 'registrant'), 'fn');
  if (organization) parsed.organization = organization;
  const abuse = firstVcard(entitiesWithRole(json, 'abuse'), 'email');
  if (abuse) parsed.abuse_contact = abuse;
  return parsed;
}

/** Registries as Team Cymru names them, from an RDAP object's port43 server or the RDAP service's host. */
const RIRS: [RegExp, string][] = [
  [/\barin\b/, 'arin'],
  [/\bripe\b/, 'ripencc'],
  [/\bapnic\b/, 'apnic'],
  [/\blacnic\b/, 'lacnic'],
  [/\bafrinic\b/, 'afrinic'],
];

function rirOf(...hints: (string | undefined)[]): string | null {
  for (const hint of hints) {
    const found = hint && RIRS.find(([pattern]) => pattern.test(hint.toLowerCase()));
    if (found) return found[1];
  }
  return null;
}

/** `YYYY-MM-DD` of a registry timestamp as written (its own calendar day, not converted). */
const dayOf = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0]) ?? null;

/** The /tools/asn fields an RDAP ip network or autnum object holds; the answering URL hints the registry. */
export interface RdapAsnFacts {
  asn: number | null;
  as_name: string | null;
  prefix: string | null;
  country: string | null;
  rir: string | null;
  allocated: string | null;
}

export function parseRdapAsn(json: unknown, answeredBy: string): RdapAsnFacts {
  const facts: RdapAsnFacts = { asn: null, as_name: null, prefix: null, country: null, rir: null, allocated: null };
  if (!isObject(json)) return facts;
  const country = text(json.country);
  facts.country = country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null;
  facts.rir = rirOf(text(json.port43), answeredBy);
  facts.allocated = dayOf(eventDate(json, 'registration'));
  if (json.objectClassName === 'autnum') {
    facts.asn = typeof json.startAutnum === 'number' ? json.startAutnum : null;
    facts.as_name = text(json.name) ?? null;
  } else {
    const blocks = rdapBlocks(json);
    facts.prefix = blocks.length > 0 ? blocks.map(formatCidr).join(', ') : null;
    // ARIN's originas0 extension lists the networks' origin ASes; others say nothing of routing.
    const origin = list(json.arin_originas0_originautnums).find((n) => typeof n === 'number');
    facts.asn = typeof origin === 'number' ? origin : null;
  }
  return facts;
}
