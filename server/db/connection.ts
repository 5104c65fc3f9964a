import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { type ChangeFeed, pgliteChangeFeed, postgresChangeFeed } from './change-feed';
import { migrate } from './migrate';
import { multiplexer } from './multiplexer';
import * as schema from './schema';
import { type Db, driverLink } from './types';

export { type Db, rowsOf } from './types';

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/** Pipelined connections per process beside the pool. */
const MULTIPLEXED_CONNECTIONS = 2;

/** The change notifications of a database or a transaction on it (change-feed.ts), for the caches built on it. */
export const changeFeedOf = (db: Db): ChangeFeed | undefined => db[driverLink]?.feed;

export type DatabaseOptions =
  | { databaseUrl: string; maxConnections?: number }
  | { dataDir: string | null /* null: in memory */ };

/** Opens PostgreSQL (a server when a URL is given, else embedded PGlite) and runs the migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options) {
    const changes = postgresChangeFeed(options.databaseUrl);
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.maxConnections ?? 10,
      // pg's pipeline mode: statements sent without waiting for the last one's answer leave at once (pipeline.ts).
      pipeline: true,
      // Connections stay open: no idle timer armed and cleared around every query.
      idleTimeoutMillis: 0,
      onConnect: (client) => {
        // A connection lost while checked out (the server restarted) fails its queries, and the pool drops it
        // on release; without a listener its 'error' event would end the process.
        client.on('error', () => {});
        return changes.onPoolConnect(client);
      },
    });
    // Likewise for an idle connection, which the pool drops before emitting this; it opens new ones on demand.
    pool.on('error', () => {});
    const statements = multiplexer(options.databaseUrl, MULTIPLEXED_CONNECTIONS, changes.onPoolConnect);
    const db: Db = Object.assign(drizzlePg(pool, { schema }), {
      [driverLink]: { kind: 'pool', pool, statements, feed: changes } as const,
    });
    const close = async () => {
      await changes.close();
      await statements.close();
      await pool.end();
    };
    try {
      await migrate(db);
    } catch (error) {
      await close();
      throw error;
    }
    return { db, kind: 'postgres', close };
  }

  const release = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    // PGlite and its drizzle driver (about 20 MB and 0.3 s before its WebAssembly starts) are loaded only here:
    // a process on a PostgreSQL server never loads them.
    const [{ PGlite }, { btree_gist }, { pg_trgm }, { drizzle: drizzlePglite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite/contrib/btree_gist'),
      import('@electric-sql/pglite/contrib/pg_trgm'),
      import('drizzle-orm/pglite'),
    ]);
    const client = await PGlite.create({
      dataDir: options.dataDir ? resolve(options.dataDir) : undefined,
      extensions: { btree_gist, pg_trgm },
    });
    const feed = await pgliteChangeFeed(client);
    const db: Db = Object.assign(drizzlePglite(client, { schema }), {
      [driverLink]: { kind: 'pglite', pglite: client, feed } as const,
    });
    await migrate(db);
    return {
      db,
      kind: 'pglite',
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A PGlite data directory belongs to one process: a second one (an operator command while the server
 * runs) would corrupt it, so it is refused with a clear message. A lock left by a dead process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'ipam.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = () => rmSync(lockFile, { force: true });
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockFile, 'utf8'));
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The embedded database in ${resolve(dataDir)} is in use by process ${holder} (a running server?). ` +
            'Stop that process first, or set DATABASE_URL to use a PostgreSQL server that several processes can share.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock ${resolve(dataDir)}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
