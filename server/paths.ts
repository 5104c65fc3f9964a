/**
 * Files the server reads at run time, found from the project's root: the SQL migrations and the built web
 * console. The root is the nearest directory above this code that holds package.json, so the same code
 * finds them run from its source (server/, under tsx) or compiled ahead (dist/ and dist/chunks/,
 * scripts/build-server.mjs), whichever file the bundler put this in.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function projectRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}: where is the project's root?`);
  }
}

export const PROJECT_ROOT = projectRoot();

/** server/db/migrations: NNNN_name.sql, applied in order by server/db/migrate.ts. */
export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'server', 'db', 'migrations');

/** Where `npm run build:web` writes the console. */
export const CONSOLE_DIST = join(PROJECT_ROOT, 'clients', 'web', 'dist');
