/**
 * `?tag=` as SQL on any tagged table (migration 0023): its `tags` array overlaps the names (any of them) or
 * contains them (all). `tags <> '{}'` is stated so that the partial GIN index of tagged rows may answer it.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TagFilter } from '../modules/shared/tags';

export function taggedAs(column: PgColumn, filter: TagFilter | undefined): SQL | undefined {
  if (filter === undefined) return undefined;
  const names = sql`ARRAY[${sql.join(
    filter.names.map((name) => sql`${name}`),
    sql`, `,
  )}]::text[]`;
  return filter.all
    ? sql`(${column} <> '{}' AND ${column} @> ${names})`
    : sql`(${column} <> '{}' AND ${column} && ${names})`;
}
