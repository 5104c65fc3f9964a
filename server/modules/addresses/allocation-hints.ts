/**
 * Where this process's last allocation in a subnet left off, so that the next one there can skip reading the
 * subnet (a round trip and a statement): its candidates are the next addresses after the last one allocated,
 * and its insert is guarded (addresses.repo.ts, insertAllocated) by what makes them the lowest free ones:
 * the subnet still holds the same number of records below them and the same child subnets, besides the pool
 * flag, gateway and VRF any allocation checks. Every address below was then taken when the hint was made and
 * still is (an address freed since would show as one record fewer, unless another took its place). When the
 * guard fails, the allocation reads the subnet as it would without a hint.
 *
 * A hint is made only where the allocation knows every record below its end: after a read whose first
 * records reach past the addresses it took, or after a hinted allocation that took exactly the first of its
 * candidates. Kept per process, for the most recent subnets; another process's allocations in the subnet
 * are records above the hint, which the insert passes over as it does any taken candidate.
 */
import { freeInWindow } from '../../ipam';
import { addressSpaceOf } from '../subnets/subnet-space.service';
import { isDryRun } from '../writes/writes';
import type { AllocationBasis, RecordsBelow } from './addresses.repo';

/** A subnet as an allocation reads it: what the candidates and the guard are made of. */
export interface HintedSubnet extends AllocationBasis {
  network: string;
  children: string[];
}

interface Hint {
  subnet: HintedSubnet;
  below: RecordsBelow;
}

/** Subnets with a hint, at most; the least recently made goes first. */
const MOST = 1000;
const hints = new Map<string, Hint>();
const keyOf = (orgId: string, subnetId: string) => `${orgId}:${subnetId.toLowerCase()}`;

function keep(orgId: string, subnetId: string, hint: Hint) {
  // A dry run's addresses were never taken: the hint before it still holds.
  if (isDryRun()) return;
  const key = keyOf(orgId, subnetId);
  hints.delete(key);
  hints.set(key, hint);
  if (hints.size > MOST) hints.delete(hints.keys().next().value as string);
}

export const forgetHint = (orgId: string, subnetId: string) => void hints.delete(keyOf(orgId, subnetId));

/** The next `wanted` addresses after the hint of the subnet (fewer at its end), with what they rely on. */
export function hintedCandidates(orgId: string, subnetId: string, wanted: number) {
  const hint = hints.get(keyOf(orgId, subnetId));
  if (!hint) return undefined;
  const space = addressSpaceOf(hint.subnet);
  const next = space.value(hint.below.next);
  const ips = freeInWindow({ first: next, last: space.usable.last }, space.excluded, [], wanted).map(space.text);
  return { subnet: hint.subnet, below: hint.below, ips };
}

/**
 * After an allocation that read the subnet (`head`: its first records, `headSize` asked for) and took the
 * first `taken` of the `free` addresses it found: a hint past them, when the head holds every record below.
 */
export function hintAfterRead(
  orgId: string,
  subnetId: string,
  subnet: HintedSubnet & { head: string[] },
  headSize: number,
  free: string[],
  taken: string[],
) {
  forgetHint(orgId, subnetId);
  const space = addressSpaceOf(subnet);
  if (!firstOf(space.value, taken, free)) return;
  const end = space.value(taken[taken.length - 1] as string) + 1n;
  // Nothing left after the subnet's last address (the family's last, at the very top of the space).
  if (end > space.usable.last) return;
  const head = subnet.head.map(space.value);
  const lastRead = head[head.length - 1];
  // A full head may stop short of records below the end.
  if (head.length >= headSize && (lastRead === undefined || lastRead < end - 1n)) return;
  const count = head.filter((ip) => ip >= space.usable.first && ip < end).length + taken.length;
  const children = [...subnet.children].sort((a, b) => {
    const [x, y] = [space.value(a.split('/')[0] as string), space.value(b.split('/')[0] as string)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  keep(orgId, subnetId, {
    subnet: { ...subnet, children },
    below: { from: space.text(space.usable.first), next: space.text(end), count, children },
  });
}

/**
 * After a hinted allocation that took `taken` of `candidates`: the hint moves past them when they were its
 * first candidates (no record passed over) and the gateway, which may hold a record, is not among what it
 * passed; else it is dropped.
 */
export function hintAfterHinted(
  orgId: string,
  subnetId: string,
  hinted: NonNullable<ReturnType<typeof hintedCandidates>>,
  taken: string[],
) {
  forgetHint(orgId, subnetId);
  const space = addressSpaceOf(hinted.subnet);
  if (!firstOf(space.value, taken, hinted.ips)) return;
  const end = space.value(taken[taken.length - 1] as string) + 1n;
  if (end > space.usable.last) return;
  const gateway = space.gateway;
  if (gateway !== null && gateway >= space.value(hinted.below.next) && gateway < end) return;
  keep(orgId, subnetId, {
    subnet: hinted.subnet,
    below: { ...hinted.below, next: space.text(end), count: hinted.below.count + taken.length },
  });
}

/** Whether `taken` (ascending) are the first of `offered`, and there are some. */
const firstOf = (value: (ip: string) => bigint, taken: string[], offered: string[]) =>
  taken.length > 0 &&
  taken.length <= offered.length &&
  taken.every((ip, i) => value(ip) === value(offered[i] as string));
