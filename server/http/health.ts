/**
 * Probes for an orchestrator or a load balancer, outside /api/v1 and the contract, unauthenticated and
 * not rate limited:
 * - GET /healthz: the process serves HTTP (liveness). Touches nothing else, so a database outage never
 *   gets the process restarted.
 * - GET /readyz: the database answers and has every migration of server/db/migrations (readiness): 503
 *   `{error, code: "unavailable"}` naming what is wrong otherwise.
 */
import { readdirSync } from 'node:fs';
import type { RequestHandler } from 'express';
import type { ErrorCode } from '../../contract/common/errors';
import { appliedMigrations } from '../db/migrate';
import type { Db } from '../db/types';
import { sqlState } from '../errors';
import { MIGRATIONS_DIR } from '../paths';

export const healthz: RequestHandler = (_req, res) => {
  res.set('Cache-Control', 'no-store').json({ status: 'ok' });
};

/** The migrations this code expects, as migrate.ts names them in schema_migrations. */
export function expectedMigrations(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d{4}_.+\.sql$/.test(file))
    .sort();
}

export interface Readiness {
  ready: boolean;
  /** What is wrong when not ready. */
  problem?: string;
}

/** Whether the database answers within `timeoutMs` and has applied every expected migration. */
export async function checkReadiness(db: Db, expected: string[], timeoutMs: number): Promise<Readiness> {
  let applied: Set<string>;
  try {
    applied = new Set(await withTimeout(appliedMigrations(db), timeoutMs));
  } catch (error) {
    if (sqlState(error) === '42P01')
      return { ready: false, problem: 'Database migrations not applied: there is no schema_migrations table' };
    return { ready: false, problem: `The database does not answer (${reasonOf(error)})` };
  }
  const missing = expected.filter((name) => !applied.has(name));
  if (missing.length > 0) return { ready: false, problem: `Database migrations not applied: ${missing.join(', ')}` };
  return { ready: true };
}

export function readyz(db: Db, { timeoutMs = 2000 } = {}): RequestHandler {
  const expected = expectedMigrations();
  return async (_req, res) => {
    const readiness = await checkReadiness(db, expected, timeoutMs);
    res.set('Cache-Control', 'no-store');
    if (readiness.ready) res.json({ status: 'ready' });
    else res.status(503).json({ error: readiness.problem, code: 'unavailable' satisfies ErrorCode });
  };
}

/** A short, safe reason: the SQLSTATE or socket error code, else the first line of the message. */
function reasonOf(error: unknown): string {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e; ) {
    if (typeof e.code === 'string') return e.code;
    if (!e.cause) break;
    e = e.cause as typeof e;
  }
  const message = error instanceof Error ? error.message : String(error);
  const [firstLine = ''] = message.split('\n');
  return firstLine.slice(0, 200);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
