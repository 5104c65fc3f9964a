/**
 * server/db/schema.ts (drizzle's view, used by queries) is written by hand beside the SQL migrations
 * (the source of the schema): every table and column it declares must exist as the migrations create
 * it, with the same nullability, and every column the migrations create must be declared.
 */

import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../server/db/connection';
import * as schema from '../../server/db/schema';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
});
afterAll(() => database?.close());

/** Tables the migrations create for code that does not query them through drizzle. */
const NOT_IN_SCHEMA = [
  'schema_migrations',
  'rate_limit_counters',
  'address_tallies',
  'change_commits',
  'change_floors',
  'ip_ranges',
  'custom_field_definitions',
  'custom_field_versions',
];

describe('the drizzle schema and the migrations', () => {
  it('declare the same tables and columns, with the same nullability', async () => {
    const created = rowsOf<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO' }>(
      await database.db.execute(sql`
        SELECT table_name, column_name, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' ORDER BY table_name, column_name`),
    )
      .filter((c) => !NOT_IN_SCHEMA.includes(c.table_name))
      .map((c) => `${c.table_name}.${c.column_name}${c.is_nullable === 'NO' ? ' not null' : ''}`);
    const tables: PgTable[] = Object.values(schema).filter((value) => is(value, PgTable));
    const declared = tables
      .flatMap((table) => {
        const config = getTableConfig(table);
        return config.columns.map((c) => `${config.name}.${c.name}${c.notNull ? ' not null' : ''}`);
      })
      .sort();
    expect(declared).toEqual(created.sort());
  });
});
