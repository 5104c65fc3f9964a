import { SEARCH_MAX_RESULTS } from '../../../contract/search.contract';
import type { Db } from '../../db/connection';
import { BITS, formatCidr, formatIp, parseCidr, parseIp } from '../../ipam';
import type { Principal } from '../../principal';
import { textFieldsEqualTo } from '../custom-fields/custom-fields.service';
import * as repo from './search.repo';

/** `%`, `_` and `\` stand for themselves in the query. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The ways a query can match: as an ip, a CIDR, the start of one, and text. */
function searchTerms(q: string): repo.SearchTerms {
  const text = q.trim();
  const cidr = text.includes('/') ? (parseCidr(text)?.cidr ?? null) : null;
  // A host CIDR (/32, /128) names one address: it finds what the bare ip finds (and a subnet of that CIDR).
  const hostCidr = cidr !== null && cidr.prefix === BITS[cidr.version];
  const ip = parseIp(text) ?? (hostCidr ? { version: cidr.version, value: cidr.network } : null);
  const lower = text.toLowerCase();
  return {
    ip: ip ? formatIp(ip) : null,
    cidr: cidr ? formatCidr(cidr) : null,
    prefix: /^[0-9a-f:.]+(\/\d*)?$/.test(lower) ? `${escapeLike(lower)}%` : null,
    substring: `%${escapeLike(text)}%`,
    exact: escapeLike(text),
    tag: text,
  };
}

/** Subnets and addresses of the organisation matching `q`, best first, at most 50 of each. */
export async function search(db: Db, caller: Principal, q: string) {
  const terms = searchTerms(q);
  const customFields = await textFieldsEqualTo(db, caller.orgId, q.trim());
  const [subnets, addresses] = [
    await repo.searchSubnets(db, caller.orgId, terms, SEARCH_MAX_RESULTS, customFields.subnet),
    await repo.searchAddresses(db, caller.orgId, terms, SEARCH_MAX_RESULTS, customFields.address),
  ];
  return { subnets, addresses };
}
