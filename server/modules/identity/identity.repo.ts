import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { apiKeys, organizations, sessions, users } from '../../db/schema';
import type { Plan } from '../plans/limits';

export type Role = 'admin' | 'editor' | 'viewer';

/** The caller as the auth layer needs it: user, organisation and the key or session used. */
export interface Principal {
  userId: string;
  orgId: string;
  role: Role;
  plan: Plan;
  /** The organisation's limit overrides, for `effectiveLimits(plan, limitOverrides)` (the rate limit). */
  limitOverrides: Record<string, number | null>;
  keyId: string | null;
  permissions: ('read' | 'write')[] | null;
  lastUsedAt: Date | null;
}

const principalColumns = {
  userId: users.id,
  orgId: users.orgId,
  role: users.role,
  plan: organizations.plan,
  limitOverrides: organizations.limitOverrides,
};

export async function findPrincipalByKeyHash(db: Db, keyHash: string): Promise<Principal | null> {
  const [row] = await db
    .select({
      ...principalColumns,
      keyId: apiKeys.id,
      permissions: apiKeys.permissions,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .innerJoin(users, and(eq(users.id, apiKeys.userId), eq(users.orgId, apiKeys.orgId)))
    .innerJoin(organizations, eq(organizations.id, users.orgId))
    .where(eq(apiKeys.keyHash, keyHash));
  return row ?? null;
}

export async function findPrincipalBySessionHash(db: Db, tokenHash: string): Promise<Principal | null> {
  const [row] = await db
    .select(principalColumns)
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(organizations, eq(organizations.id, users.orgId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, new Date())));
  return row ? { ...row, keyId: null, permissions: null, lastUsedAt: null } : null;
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
  const [row] = await db
    .insert(organizations)
    .values({ ...values, limitOverrides: {} })
    .returning({ id: organizations.id });
  return row;
}

export async function slugExists(db: Db, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
  return Boolean(row);
}

export async function insertUser(db: Db, values: { orgId: string; email: string; name: string; role: Role }) {
  const [row] = await db
    .insert(users)
    .values({ ...values, emailVerified: false })
    .returning({ id: users.id, orgId: users.orgId, role: users.role });
  return row;
}

export async function updateUserRole(db: Db, userId: string, role: Role) {
  await db.update(users).set({ role }).where(eq(users.id, userId));
}

export async function insertApiKey(
  db: Db,
  values: {
    orgId: string;
    userId: string;
    name: string;
    keyHash: string;
    keyPrefix: string;
    permissions: ('read' | 'write')[];
  },
) {
  const [row] = await db.insert(apiKeys).values(values).returning({ id: apiKeys.id });
  return row;
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
export async function lockOrganization(db: Db, orgId: string) {
  const [row] = await db
    .select({ plan: organizations.plan, limitOverrides: organizations.limitOverrides })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .for('no key update');
  return row;
}
