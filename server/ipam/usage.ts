// Which addresses of a subnet can be handed out, and how full it is.
import { type Cidr, cidrRange, type Ip, type Range } from './ip';

// Shorter IPv4 subnets lose their network and broadcast addresses; /31 (RFC 3021) and /32 keep every address.
const LONGEST_IPV4_WITH_BROADCAST = 30;

/** IPv4 subnets of /30 or shorter exclude network and broadcast unless a pool; otherwise (IPv4 /31, /32, every IPv6, pools) the whole range. */
export function usableRange(c: Cidr, isPool: boolean): Range {
  const { first, last } = cidrRange(c);
  const reservesEnds = c.version === 4 && c.prefix <= LONGEST_IPV4_WITH_BROADCAST && !isPool;
  return reservesEnds ? { first: first + 1n, last: last - 1n } : { first, last };
}

export function usableTotal(c: Cidr, isPool: boolean): bigint {
  const { first, last } = usableRange(c, isPool);
  return last - first + 1n;
}

/**
 * The prefix lengths of the non-pool subnets an address would be the network or broadcast address of, were
 * it inside them: the IPv4 prefixes up to /30 whose host bits in `ip` are all zeros or all ones. A subnet
 * holding `ip` may assign it unless it is such a subnet, so a database can check a write without IP
 * arithmetic of its own (`masklen(network) = ANY(...)`).
 */
export function edgePrefixes(ip: Ip): number[] {
  if (ip.version !== 4) return [];
  const prefixes: number[] = [];
  for (let prefix = 0; prefix <= LONGEST_IPV4_WITH_BROADCAST; prefix++) {
    const hostBits = (1n << BigInt(32 - prefix)) - 1n;
    const host = ip.value & hostBits;
    if (host === 0n || host === hostBits) prefixes.push(prefix);
  }
  return prefixes;
}

export function isAssignable(c: Cidr, isPool: boolean, ip: Ip): boolean {
  if (c.version !== ip.version) return false;
  const { first, last } = usableRange(c, isPool);
  return first <= ip.value && ip.value <= last;
}

// Significant bits kept in the quotient: below a double's 53, so converting it is exact.
const QUOTIENT_BITS = 52;

/**
 * used/total in [0, 1], 0 when total is 0. The division runs on bigints scaled to keep ~52 significant bits, so
 * IPv6-sized counts stay precise and the answer is below 1 while any address is free. Fractional numbers are truncated.
 */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

export function utilization(used: bigint | number, total: bigint | number): number {
  const usedCount = toBigInt(used);
  const totalCount = toBigInt(total);
  if (totalCount <= 0n || usedCount <= 0n) return 0;
  if (usedCount >= totalCount) return 1;
  // Counts that doubles hold exactly divide correctly rounded, and stay below 1 while anything is free.
  if (totalCount <= MAX_EXACT) return Number(usedCount) / Number(totalCount);
  const shift = bitLength(totalCount) - bitLength(usedCount) + QUOTIENT_BITS;
  // The quotient has at most 53 bits and 2 ** shift is a power of two, so both steps are exact.
  return Number((usedCount << BigInt(shift)) / totalCount) / 2 ** shift;
}

function toBigInt(count: bigint | number): bigint {
  return typeof count === 'bigint' ? count : BigInt(Math.trunc(count));
}

function bitLength(positive: bigint): number {
  return positive.toString(2).length;
}
