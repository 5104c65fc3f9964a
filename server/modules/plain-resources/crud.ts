/**
 * The create, update and delete transactions the plain resources (folders, VLANs, VRFs, locations)
 * share: the plan limit checked with the organisation locked, a unique violation turned into the
 * module's `duplicate` message, and the activity entry written in the transaction of the change. The
 * modules keep their checks, messages and DTOs, and map the rows these answer. A module of its own: it
 * calls activity and identity, which import shared/ (what every module may use, importing no module).
 */
import type { Db } from '../../db/connection';
import type { OrgRows } from '../../db/org-rows';
import { transaction } from '../../db/pipeline';
import { isUniqueViolation } from '../../errors';
import type { Principal } from '../../principal';
import { type Actor, type ResourceType, recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertLimitLocked } from '../identity/limit-check';
import type { LimitName } from '../plans/limits';
import { atVersion, orNotFound, uniqueOr } from '../shared/results';
import { commitTransaction } from '../writes/writes';

/** What the shared transactions need to know of one plain resource. */
export interface PlainResource<Row extends { id: string }, Values> {
  repo: OrgRows<Row, Values>;
  /** The plan limit on how many an organisation has. */
  limit: LimitName;
  /** Its `resource_type` in the activity log. */
  type: ResourceType;
  /** Its name in "… not found". */
  name: string;
  /** The fields its activity entries record. */
  fields: (row: Row) => Record<string, unknown>;
  /** Its representation, as its GET answers it: what an `If-Match` is compared with (server/versions.ts). */
  represent: (row: Row) => unknown;
  /** What else changes with an update or a delete, in its transaction (a tag's name, on the rows carrying it). */
  afterUpdate?: (tx: Db, orgId: string, before: Row, after: Row) => Promise<void>;
  afterRemove?: (tx: Db, orgId: string, row: Row) => Promise<void>;
}

/** The transactions of one plain resource, with its `name` for the module's own "… not found". */
export function plainCrud<Row extends { id: string }, Values>(resource: PlainResource<Row, Values>) {
  const { repo, limit, type, name, fields, represent, afterUpdate, afterRemove } = resource;
  /**
   * Adds a row within the plan's limit and logs it, in the caller's transaction; with `duplicate`, a
   * unique violation is a 400 with that message (ensureVlan and ensureVrf add without one).
   */
  const insert = async (tx: Db, caller: Actor, values: Values, duplicate?: string) => {
    await assertLimitLocked(tx, caller, limit, () => repo.countInOrg(tx, caller.orgId));
    const add = () => repo.insert(tx, caller.orgId, values);
    const row = await (duplicate === undefined ? add() : uniqueOr(add, duplicate));
    await recordCreate(tx, caller, type, row.id, fields(row));
    return row;
  };
  /**
   * The row `find` answers, else a new one (within the plan's limit, logged). `find` locks the row it finds
   * against deletion (FOR KEY SHARE), so the caller may refer to it until its transaction ends; one deleted
   * meanwhile is not found, and made anew. When a concurrent transaction adds the same row first, the insert
   * (in a savepoint, so this transaction goes on) yields to it.
   */
  const ensure = async (tx: Db, caller: Actor, find: () => Promise<Row | undefined>, values: Values) => {
    const existing = await find();
    if (existing) return existing;
    try {
      return await transaction(tx, (savepoint) => insert(savepoint, caller, values));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return orNotFound(await find(), name);
    }
  };
  /** Checks run in the transaction of a create or update before it writes (rows the values refer to). */
  type Check = (tx: Db) => Promise<void>;
  /** The row locked, then its `If-Match` checked against its representation (412 when it moved on). */
  const lockedAt = async (tx: Db, orgId: string, id: string, ifMatch: string | undefined) =>
    atVersion(await repo.getForUpdate(tx, orgId, id), name, ifMatch, represent);
  return {
    name,
    ensure,
    /**
     * Whether the organisation has this row, which then stays until the transaction ends: for another
     * module's row about to refer to it (a delete under way is waited for, and then it is gone).
     */
    lockForReference: async (tx: Db, orgId: string, id: string) => Boolean(await repo.getForReference(tx, orgId, id)),
    /** Adds a row and answers it as `answer` makes it (kept with the change for an Idempotency-Key). */
    create: <Answer>(
      db: Db,
      caller: Principal,
      values: Values,
      duplicate: string,
      answer: (row: Row) => Answer,
      check?: Check,
    ) =>
      commitTransaction(db, async (tx) => {
        await check?.(tx);
        return answer(await insert(tx, caller, values, duplicate));
      }),
    /** Changes the given columns of the row, locked while it changes, and logs what changed. */
    update: (
      db: Db,
      caller: Principal,
      id: string,
      values: Partial<Values>,
      duplicate: string,
      { check, ifMatch }: { check?: Check; ifMatch?: string } = {},
    ) =>
      commitTransaction(db, async (tx) => {
        await check?.(tx);
        const before = await lockedAt(tx, caller.orgId, id, ifMatch);
        const row = await uniqueOr(() => repo.update(tx, caller.orgId, id, values), duplicate);
        await afterUpdate?.(tx, caller.orgId, before, row);
        await recordUpdate(tx, caller, type, id, fields(before), fields(row));
        return row;
      }),
    /** Deletes the row and logs it; with `If-Match`, the row is locked and checked first. */
    remove: async (db: Db, caller: Principal, id: string, ifMatch?: string) => {
      await commitTransaction(db, async (tx) => {
        if (ifMatch !== undefined) await lockedAt(tx, caller.orgId, id, ifMatch);
        const row = orNotFound(await repo.remove(tx, caller.orgId, id), name);
        await afterRemove?.(tx, caller.orgId, row);
        await recordDelete(tx, caller, type, id, fields(row));
      });
    },
  };
}
