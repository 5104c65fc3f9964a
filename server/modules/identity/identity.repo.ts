import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { apiKeys, organizations, sessions, users } from '../../db/schema';
import type { Plan, Principal, Role } from '../../principal';
import { first } from '../shared/rows';

/** The caller of a request, by the hash of its API key or session token: the hot path of every request. */
const principalQuery = (from: string) => `
  SELECT u.id AS "userId", u.org_id AS "orgId", u.role, o.plan, o.limit_overrides AS "limitOverrides", ${from}
  JOIN organizations o ON o.id = u.org_id`;

const principalByKeyHash = prepared<Principal, { keyHash: string }>(
  'principal_by_key_hash',
  `${principalQuery(`k.id AS "keyId", k.permissions, k.last_used_at AS "lastUsedAt"
  FROM api_keys k JOIN users u ON u.id = k.user_id AND u.org_id = k.org_id`)} WHERE k.key_hash = :keyHash`,
);

const principalBySessionHash = prepared<Principal & { expiresAt: Date }, { tokenHash: string }>(
  'principal_by_session_hash',
  `${principalQuery(`NULL::uuid AS "keyId", NULL::text[] AS permissions, NULL::timestamptz AS "lastUsedAt",
    s.expires_at AS "expiresAt"
  FROM sessions s JOIN users u ON u.id = s.user_id`)} WHERE s.token_hash = :tokenHash AND s.expires_at > now()`,
);

export async function findPrincipalByKeyHash(db: Db, keyHash: string): Promise<Principal | null> {
  return (await principalByKeyHash(db, { keyHash }))[0] ?? null;
}

/** The caller of a session, and when the session ends. */
export async function findPrincipalBySessionHash(
  db: Db,
  tokenHash: string,
): Promise<{ principal: Principal; expiresAt: Date } | null> {
  const [row] = await principalBySessionHash(db, { tokenHash });
  if (!row) return null;
  const { expiresAt, ...principal } = row;
  return { principal, expiresAt };
}

/** Records use at most once a minute per key, so reads do not turn into a write each. */
export async function touchKey(db: Db, keyId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: new Date() })
    .where(
      and(
        eq(apiKeys.id, keyId),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
      ),
    );
}

export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db
    .select({ id: users.id, orgId: users.orgId, role: users.role })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row ?? null;
}

export async function insertOrganization(db: Db, values: { name: string; slug: string; plan: Plan }) {
  const rows = await db
    .insert(organizations)
    .values({ ...values, limitOverrides: {} })
    .returning({ id: organizations.id });
  return first(rows, 'the inserted organisation');
}

export async function slugExists(db: Db, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
  return Boolean(row);
}

export async function insertUser(db: Db, values: { orgId: string; email: string; name: string; role: Role }) {
  const rows = await db
    .insert(users)
    .values({ ...values, emailVerified: false })
    .returning({ id: users.id, orgId: users.orgId, role: users.role });
  return first(rows, 'the inserted user');
}

export async function updateUserRole(db: Db, userId: string, role: Role) {
  await db.update(users).set({ role }).where(eq(users.id, userId));
}

/** The parameters of a new API key. */
interface ApiKeyInsert {
  orgId: string;
  userId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  permissions: ('read' | 'write')[];
}

const apiKeyInserted = prepared<{ id: string }, ApiKeyInsert>(
  'identity_insert_api_key',
  `INSERT INTO api_keys (org_id, user_id, name, key_hash, key_prefix, permissions)
   SELECT u.org_id, u.id, :name, :keyHash, :keyPrefix, :permissions::text[]
   FROM users u WHERE u.org_id = :orgId AND u.id = :userId FOR KEY SHARE
   RETURNING id`,
);

/**
 * Inserts a key for the user, locked against deletion as it is read (FOR KEY SHARE); no row (undefined) when
 * the user is gone: removed while the request ran, where the foreign key would refuse the key.
 */
export async function insertApiKey(db: Db, values: ApiKeyInsert): Promise<{ id: string } | undefined> {
  return (await apiKeyInserted(db, values))[0];
}

export async function insertSession(db: Db, values: { userId: string; tokenHash: string; expiresAt: Date }) {
  await db.insert(sessions).values(values);
}

export async function updateOrganization(
  db: Db,
  orgId: string,
  values: Partial<{ plan: Plan; limitOverrides: Record<string, number | null> }>,
) {
  await db
    .update(organizations)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(organizations.id, orgId));
}

export async function getOrganization(db: Db, orgId: string) {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, orgId));
  return row ?? null;
}

/**
 * Locks the organisation row for the rest of the transaction and answers its plan and overrides, so
 * limit checks and the inserts they guard are serialised per organisation. NO KEY UPDATE does not
 * conflict with the key-share locks that inserts referencing the organisation take.
 */
const organizationLocked = prepared<{ plan: Plan; limitOverrides: Record<string, number | null> }, { orgId: string }>(
  'organization_locked',
  'SELECT plan, limit_overrides AS "limitOverrides" FROM organizations WHERE id = :orgId FOR NO KEY UPDATE',
);

/** `lockOrganization` as a step of a pipeline. */
export const lockOrganizationStep = (orgId: string) => organizationLocked.step({ orgId });

export async function lockOrganization(db: Db, orgId: string) {
  const [row] = await db
    .select({ plan: organizations.plan, limitOverrides: organizations.limitOverrides })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .for('no key update');
  return row;
}
