/**
 * The answers that carry counts of addresses, typed as the SDK hands them over. The generated types read
 * the document's `integer` as `number`; `parseJson` (json.ts) answers a count past
 * `Number.MAX_SAFE_INTEGER` (an IPv6 subnet of prefix /75 or shorter) as an exact `bigint`.
 */
import type * as generated from './generated/endpoints.schemas.js';
import type { AddressCount } from './json.js';

export type { AddressCount };

/** A subnet with its utilization; `total_count` is a `bigint` past `Number.MAX_SAFE_INTEGER`. */
export interface Subnet extends Omit<generated.Subnet, 'total_count'> {
  /** Usable addresses of the subnet, exact; omitted when unset. */
  total_count?: AddressCount;
}

/** A subnet with its utilization and its direct children; `total_count` as in {@link Subnet}. */
export interface SubnetDetail extends Omit<generated.SubnetDetail, 'total_count'> {
  /** Usable addresses of the subnet, exact; omitted when unset. */
  total_count?: AddressCount;
}

/** The created subnet, when it overlaps ranges in other VRFs. */
export interface SubnetCreatedWithWarnings extends Omit<generated.SubnetCreatedWithWarnings, 'subnet'> {
  subnet: SubnetDetail;
}

/** Utilization of a subnet; `total` is a `bigint` past `Number.MAX_SAFE_INTEGER`. */
export interface SubnetUsage extends Omit<generated.SubnetUsage, 'total'> {
  /** Usable addresses, exact. */
  total: AddressCount;
}

/** A range of a subnet; `size` is a `bigint` past `Number.MAX_SAFE_INTEGER` (IPv6). */
export interface IpRange extends Omit<generated.IpRange, 'size'> {
  /** Addresses in the range, exact. */
  size: AddressCount;
}

/** A generated body type with its counts of addresses as `parseJson` answers them (other types unchanged). */
export type ExactCounts<T> = T extends generated.IpRange
  ? IpRange
  : T extends generated.IpRange[]
    ? IpRange[]
    : T extends generated.SubnetUsage
      ? SubnetUsage
      : T extends generated.SubnetDetail
        ? SubnetDetail
        : T extends generated.SubnetCreatedWithWarnings
          ? SubnetCreatedWithWarnings
          : T extends generated.Subnet
            ? Subnet
            : T extends generated.Subnet[]
              ? Subnet[]
              : T;

/** A generated operation's `{data, status, headers}` with `data` typed by {@link ExactCounts}. */
export type ExactAnswer<R> = R extends { data: infer D }
  ? [ExactCounts<D>] extends [D]
    ? R
    : Omit<R, 'data'> & { data: ExactCounts<D> }
  : R;
