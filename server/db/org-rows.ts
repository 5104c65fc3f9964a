/**
 * The SQL the plain resource tables (folders, VLANs, VRFs, locations) share: one organisation's rows,
 * read, locked, counted, added, changed and removed by id. Each repo exports these beside its own lists
 * and lookups. Here in server/db, as a builder of queries on any such table, so that those repos share it
 * without importing another module's repository.
 */
import { and, count, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './types';

/** A table whose rows belong to one organisation, each with an id and an updated_at. */
type OrgTable = PgTable & { id: PgColumn; orgId: PgColumn; updatedAt: PgColumn };

export interface OrgRows<Row, Values> {
  get: (db: Db, orgId: string, id: string) => Promise<Row | undefined>;
  /** The row locked until the transaction ends, so its old values stay true while it is changed. */
  getForUpdate: (db: Db, orgId: string, id: string) => Promise<Row | undefined>;
  /**
   * The row kept from being deleted until the transaction ends (FOR KEY SHARE, which changes of its other
   * columns do not wait for): taken before another row is written to refer to it, so the foreign key cannot
   * refuse that write; undefined when it is gone (a delete that was under way has committed).
   */
  getForReference: (db: Db, orgId: string, id: string) => Promise<Row | undefined>;
  countInOrg: (db: Db, orgId: string) => Promise<number>;
  insert: (db: Db, orgId: string, values: Values) => Promise<Row>;
  /** Sets the given columns and updated_at. */
  update: (db: Db, orgId: string, id: string, values: Partial<Values>) => Promise<Row>;
  remove: (db: Db, orgId: string, id: string) => Promise<Row | undefined>;
}

/**
 * The shared SQL of one table; `Values` are the columns its module writes, checked against the table.
 * Drizzle's builders cannot type a table given as a type parameter (drizzle-orm#4367): the queries run
 * on it as a plain `OrgTable`, and `first` gives their first row the table's row type back. The
 * functions stay async, as the repos' own were, so an error building a query is a rejection.
 */
export function orgRows<T extends OrgTable, Values extends Omit<T['$inferInsert'], 'orgId'>>(
  typed: T,
): OrgRows<T['$inferSelect'], Values> {
  const table: OrgTable = typed;
  const first = async (rows: Promise<unknown[]>) => (await rows)[0] as T['$inferSelect'];
  const inOrg = (orgId: string, id: string) => and(eq(table.orgId, orgId), eq(table.id, id));
  return {
    get: async (db, orgId, id) => first(db.select().from(table).where(inOrg(orgId, id))),
    getForUpdate: async (db, orgId, id) => first(db.select().from(table).where(inOrg(orgId, id)).for('update')),
    getForReference: async (db, orgId, id) => first(db.select().from(table).where(inOrg(orgId, id)).for('key share')),
    countInOrg: async (db, orgId) =>
      (await db.select({ n: count() }).from(table).where(eq(table.orgId, orgId)))[0]?.n ?? 0,
    insert: async (db, orgId, values) =>
      first(
        db
          .insert(table)
          .values({ orgId, ...values })
          .returning(),
      ),
    update: async (db, orgId, id, values) =>
      first(
        db
          .update(table)
          .set({ ...values, updatedAt: new Date() })
          .where(inOrg(orgId, id))
          .returning(),
      ),
    remove: async (db, orgId, id) => first(db.delete(table).where(inOrg(orgId, id)).returning()),
  };
}
