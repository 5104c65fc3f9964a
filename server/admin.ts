/**
 * Operator commands (`npm run admin -- <command> …`) against the storage the server uses, so a new
 * user, a script or a test can start without email or Stripe. The requested value is the last line.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { openConfiguredDatabase } from './db/configured';
import type { Db } from './db/connection';
import { HttpError } from './errors';
import * as identity from './modules/identity/identity.service';
import type { LimitName, Plan } from './modules/plans/limits';
import type { Role } from './principal';

const usage = `Usage: npm run admin -- <command> [options]

  create-key --email E [--plan P] [--role R] [--permissions read,write] [--name N]
      Creates the user (and a new organisation, plan free by default) if needed; prints a new API key.
  create-session --email E
      Prints a service_session cookie value for the user (created if needed).
  set-plan --email E --plan free|pro|teams|enterprise
  set-limits --email E --limit subnets=200000 [--limit addresses=1000000 …]
      Per-organisation limit overrides (enterprise "custom" figures); a value of "unlimited" removes the cap.
      Limits: users, folders, subnets, addresses, vlans, vrfs, locations, tags, api_keys, webhooks, rate_limit, activity_retention_days.`;

function parseLimits(entries: string[]): Partial<Record<LimitName, number | null>> {
  const limits: Partial<Record<LimitName, number | null>> = {};
  for (const entry of entries) {
    const match = /^([a-z_]+)=(\d+|unlimited)$/.exec(entry);
    if (!match) throw new HttpError(400, 'validation', `--limit ${entry}: expected name=number or name=unlimited`);
    limits[match[1] as LimitName] = match[2] === 'unlimited' ? null : Number(match[2]);
  }
  return limits;
}

function parsePermissions(value: string | undefined): ('read' | 'write')[] | undefined {
  if (value === undefined) return undefined;
  const permissions = value.split(',').map((p) => p.trim());
  if (permissions.length === 0 || permissions.some((p) => p !== 'read' && p !== 'write')) {
    throw new HttpError(400, 'validation', `--permissions ${value}: use read, write or read,write`);
  }
  return permissions as ('read' | 'write')[];
}

type Values = Record<string, string | string[] | boolean | undefined>;

/** Validates the command line first, so a typo never touches (or waits for) the database. */
function command(name: string, values: Values): (db: Db) => Promise<string> {
  const email = values.email as string | undefined;
  if (!['create-key', 'create-session', 'set-plan', 'set-limits'].includes(name)) {
    throw new HttpError(400, 'validation', `Unknown command ${name}\n\n${usage}`);
  }
  if (!email) throw new HttpError(400, 'validation', '--email is required');
  switch (name) {
    case 'create-key': {
      const permissions = parsePermissions(values.permissions as string | undefined);
      const keyName = (values.name as string | undefined) ?? 'operator key';
      return async (db) => {
        const user = await identity.ensureUser(db, email, { plan: values.plan as Plan, role: values.role as Role });
        return (await identity.createApiKey(db, user, keyName, permissions)).key;
      };
    }
    case 'create-session':
      return async (db) => identity.createSession(db, (await identity.ensureUser(db, email)).id);
    case 'set-plan': {
      const plan = values.plan as Plan | undefined;
      if (!plan) throw new HttpError(400, 'validation', '--plan is required');
      return async (db) => {
        await identity.setPlan(db, email, plan);
        return `plan of ${email}'s organisation set to ${plan}`;
      };
    }
    default: {
      const limits = parseLimits((values.limit as string[] | undefined) ?? []);
      return async (db) => {
        await identity.setLimits(db, email, limits);
        return `limits of ${email}'s organisation updated`;
      };
    }
  }
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      role: { type: 'string' },
      permissions: { type: 'string' },
      name: { type: 'string' },
      limit: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [name, ...others] = positionals;
  if (values.help || name === undefined || others.length > 0) {
    console.log(usage);
    process.exit(values.help ? 0 : 2);
  }
  const run = command(name, values);
  const database = await openConfiguredDatabase(loadConfig());
  try {
    console.log(await run(database.db));
  } finally {
    await database.close();
  }
}

main().catch((error) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
