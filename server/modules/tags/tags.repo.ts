/**
 * The SQL of tags (migration 0023): the tags themselves, and the `tags` arrays of the six tagged tables, which
 * this module alone rewrites (a rename or delete of a tag); the other modules write them as any column.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { orgRows } from '../../db/org-rows';
import { prepared } from '../../db/prepared';
import { tags } from '../../db/schema';

export type TagRow = typeof tags.$inferSelect;
export type TagValues = { name: string; colour?: string; description?: string };

export const { get, getForUpdate, getForReference, countInOrg, insert, update, remove } = orgRows<
  typeof tags,
  TagValues
>(tags);

export const listInOrg = (db: Db, orgId: string) =>
  db.select().from(tags).where(eq(tags.orgId, orgId)).orderBy(asc(tags.name));

/** The tag with this name, kept from being renamed or deleted until the transaction ends (FOR KEY SHARE). */
export const findByName = async (db: Db, orgId: string, name: string) =>
  (
    await db
      .select()
      .from(tags)
      .where(and(eq(tags.orgId, orgId), eq(tags.name, name)))
      .for('key share')
  )[0];

/** Why a write's tags were refused: one of the names is no tag of the organisation. */
export type TagRefusal = { rule: 'tag'; name: string };

/**
 * Locks the named tags against a rename or delete (FOR KEY SHARE: one under way is waited for) until the
 * transaction ends, and fails (a TagRefusal) naming one that the organisation does not have. A writer takes
 * these locks before it locks the row it tags, as a rename locks the tag before the rows it rewrites.
 */
const namedLocked = prepared<unknown, { orgId: string; names: string[] }>(
  'tags_named_locked',
  `SELECT ipam_require(false, json_build_object('rule', 'tag', 'name', n.name)::text)
   FROM unnest(:names::text[]) AS n(name)
   WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.org_id = :orgId AND t.name = n.name FOR KEY SHARE)`,
);

export const lockNamedStep = (orgId: string, names: string[]) => namedLocked.step({ orgId, names });
export const lockNamed = (db: Db, orgId: string, names: string[]) => namedLocked(db, { orgId, names });

/** The tables whose rows carry tags (migration 0023). */
const TAGGED_TABLES = ['subnets', 'addresses', 'vlans', 'vrfs', 'locations', 'folders'];

/** The rows of the six tagged tables that carry `tag`, set to `set`, for one statement over them all. */
const everyTagged = (set: string) =>
  TAGGED_TABLES.map(
    (table) =>
      `${table}_changed AS (UPDATE ${table} SET tags = ${set}
           WHERE org_id = :orgId AND tags <> '{}' AND tags @> ARRAY[:tag::text] RETURNING 1)`,
  ).join(',\n');

const COUNT_CHANGED = TAGGED_TABLES.map((table) => `(SELECT count(*)::int FROM ${table}_changed)`).join(' + ');

const renamed = prepared<{ count: number }, { orgId: string; tag: string; to: string }>(
  'tags_rename_everywhere',
  `WITH ${everyTagged('array_replace(tags, :tag::text, :to::text)')} SELECT ${COUNT_CHANGED} AS count`,
);

/** Every resource of the organisation carrying `tag` carries `to` instead; answers how many changed. */
export const renameEverywhere = async (db: Db, orgId: string, tag: string, to: string) =>
  (await renamed(db, { orgId, tag, to }))[0]?.count ?? 0;

const removed = prepared<{ count: number }, { orgId: string; tag: string }>(
  'tags_remove_everywhere',
  `WITH ${everyTagged('array_remove(tags, :tag::text)')} SELECT ${COUNT_CHANGED} AS count`,
);

/** `tag` is taken off every resource of the organisation carrying it; answers how many changed. */
export const removeEverywhere = async (db: Db, orgId: string, tag: string) =>
  (await removed(db, { orgId, tag }))[0]?.count ?? 0;
