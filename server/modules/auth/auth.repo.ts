import { and, asc, count, eq, gt, isNull, lt, min, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { magicLinks, oauthFlows, organizations, sessions, users } from '../../db/schema';
import type { Role } from '../../principal';
import type { Plan } from '../plans/limits';
import { first } from '../shared/rows';

/* Magic links */

const addressLocked = prepared<unknown, { email: string }>(
  'auth_lock_address',
  'SELECT pg_advisory_xact_lock(4004, hashtext(:email))',
);

/** Serialises the count-then-insert of one address's links (two-key advisory lock space 4004). */
export async function lockAddress(tx: Db, email: string): Promise<void> {
  await addressLocked(tx, { email: email.toLowerCase() });
}

/** The address's links created since `since`: how many, and when the oldest of them was made. */
export async function recentLinks(db: Db, email: string, since: Date) {
  const row = first(
    await db
      .select({ n: count(), oldest: min(magicLinks.createdAt) })
      .from(magicLinks)
      .where(and(sql`lower(${magicLinks.email}) = ${email.toLowerCase()}`, gt(magicLinks.createdAt, since))),
    'a count of sign-in links',
  );
  return { count: row.n, oldest: row.oldest ? new Date(row.oldest) : null };
}

export async function insertMagicLink(
  db: Db,
  values: { tokenHash: string; email: string; createdAt: Date; expiresAt: Date },
) {
  await db.insert(magicLinks).values(values);
}

export async function deleteMagicLink(db: Db, tokenHash: string) {
  await db.delete(magicLinks).where(eq(magicLinks.tokenHash, tokenHash));
}

/** Links that expired before `before` (used or not). */
export async function purgeMagicLinks(db: Db, before: Date) {
  await db.delete(magicLinks).where(lt(magicLinks.expiresAt, before));
}

/**
 * Consumes a link in one statement: of two concurrent uses, only one finds `used_at` still null.
 * Answers the address, or null when the token is unknown, used or expired.
 */
export async function consumeMagicLink(db: Db, tokenHash: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(magicLinks)
    .set({ usedAt: now })
    .where(and(eq(magicLinks.tokenHash, tokenHash), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
    .returning({ email: magicLinks.email });
  return row?.email ?? null;
}

export async function findMagicLink(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ usedAt: magicLinks.usedAt, expiresAt: magicLinks.expiresAt })
    .from(magicLinks)
    .where(eq(magicLinks.tokenHash, tokenHash));
  return row ?? null;
}

/* Google sign-in flows */

export async function insertOAuthFlow(db: Db, values: typeof oauthFlows.$inferInsert) {
  await db.insert(oauthFlows).values(values);
}

/** Takes the flow out (whatever its age: the caller checks the expiry), so a callback is processed once. */
export async function takeOAuthFlow(db: Db, idHash: string) {
  const [row] = await db.delete(oauthFlows).where(eq(oauthFlows.idHash, idHash)).returning();
  return row ?? null;
}

export async function purgeOAuthFlows(db: Db, now: Date) {
  await db.delete(oauthFlows).where(lt(oauthFlows.expiresAt, now));
}

/* Users and sessions */

/** After a sign-in proved the address: verified, and the provider's name when the user has none yet. */
export async function markSignedIn(db: Db, userId: string, name: string) {
  await db
    .update(users)
    .set({
      emailVerified: true,
      name: sql`CASE WHEN ${users.name} = '' THEN ${name.slice(0, 200)} ELSE ${users.name} END`,
    })
    .where(eq(users.id, userId));
}

export async function deleteSessionByHash(db: Db, tokenHash: string) {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

const userWithOrganization = prepared<
  {
    id: string;
    email: string;
    name: string;
    emailVerified: boolean;
    role: Role;
    createdAt: Date;
    orgName: string;
    slug: string;
    plan: Plan;
    orgCreatedAt: Date;
    orgUpdatedAt: Date;
  },
  { orgId: string; userId: string }
>(
  'user_with_organization',
  `SELECT u.id, u.email, u.name, u.email_verified AS "emailVerified", u.role, u.created_at AS "createdAt",
     o.name AS "orgName", o.slug, o.plan, o.created_at AS "orgCreatedAt", o.updated_at AS "orgUpdatedAt"
   FROM users u JOIN organizations o ON o.id = u.org_id
   WHERE u.org_id = :orgId AND u.id = :userId`,
);

export async function getUserWithOrganization(db: Db, orgId: string, userId: string) {
  const [r] = await userWithOrganization(db, { orgId, userId });
  if (!r) return null;
  return {
    user: {
      id: r.id,
      email: r.email,
      name: r.name,
      emailVerified: r.emailVerified,
      role: r.role,
      createdAt: r.createdAt,
    },
    organization: {
      id: orgId,
      name: r.orgName,
      slug: r.slug,
      plan: r.plan,
      createdAt: r.orgCreatedAt,
      updatedAt: r.orgUpdatedAt,
    },
  };
}

/** Every member of the organisation with their role (call with the organisation row locked). */
export const memberRoles = (tx: Db, orgId: string) =>
  tx.select({ id: users.id, role: users.role }).from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.id));

/** The user; their sessions and API keys go with them (foreign keys cascade). */
export async function deleteUser(tx: Db, orgId: string, userId: string) {
  await tx.delete(users).where(and(eq(users.orgId, orgId), eq(users.id, userId)));
}

/** The organisation and everything in it: every tenant table cascades from organizations. */
export async function deleteOrganization(tx: Db, orgId: string) {
  await tx.delete(organizations).where(eq(organizations.id, orgId));
}
