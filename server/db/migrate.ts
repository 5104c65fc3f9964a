import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR } from '../paths';
import { type Db, rowsOf } from './types';

/**
 * Applies migrations/NNNN_*.sql in order, each once, in one transaction. The advisory lock serialises
 * several processes starting together against one PostgreSQL server. Same SQL for PGlite and PostgreSQL.
 */
export async function migrate(db: Db): Promise<void> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort();
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(727274)`);
    await tx.execute(
      sql`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = rowsOf<{ name: string }>(await tx.execute(sql`SELECT name FROM schema_migrations`));
    const done = new Set(applied.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      for (const statement of splitStatements(readFileSync(join(MIGRATIONS_DIR, file), 'utf8'))) {
        await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${file})`);
    }
  });
}

/**
 * The names of the migrations the database has applied (readiness compares them with migrations/); rejects
 * with SQLSTATE 42P01 when none ever ran (no schema_migrations table).
 */
export async function appliedMigrations(db: Db): Promise<string[]> {
  return rowsOf<{ name: string }>(await db.execute(sql`SELECT name FROM schema_migrations`)).map((row) => row.name);
}

/** Splits a script at semicolons that end a line, outside `$$` bodies (drivers prepare one statement at a time). */
function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let inBody = false;
  for (const line of script.split('\n')) {
    if (/^\s*--/.test(line) && current.length === 0) continue;
    current.push(line);
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.join('\n'));
      current = [];
    }
  }
  if (current.join('').trim()) statements.push(current.join('\n'));
  return statements;
}
