import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { apiKeys, organizations, sessions, users } from '../../db/schema';
import type { Role } from '../../principal';
import { first } from '../shared/rows';

const memberColumns = {
  userId: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  acceptedAt: users.acceptedAt,
};
export type MemberRow = { userId: string; email: string; name: string; role: Role; acceptedAt: Date };

const inOrg = (orgId: string, userId: string) => and(eq(users.orgId, orgId), eq(users.id, userId));

export const listMembers = (db: Db, orgId: string): Promise<MemberRow[]> =>
  db.select(memberColumns).from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.acceptedAt), asc(users.email));

export const getMember = async (db: Db, orgId: string, userId: string): Promise<MemberRow | undefined> =>
  (await db.select(memberColumns).from(users).where(inOrg(orgId, userId)))[0];

export const countMembers = async (db: Db, orgId: string) =>
  first(await db.select({ n: count() }).from(users).where(eq(users.orgId, orgId)), 'a count of members').n;

export const countAdmins = async (db: Db, orgId: string) =>
  first(
    await db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.orgId, orgId), eq(users.role, 'admin'))),
    'a count of admins',
  ).n;

export const isMemberEmail = async (db: Db, orgId: string, email: string) =>
  (
    await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.orgId, orgId), sql`lower(${users.email}) = lower(${email})`))
  ).length > 0;

export const setRole = (db: Db, orgId: string, userId: string, role: Role) =>
  db.update(users).set({ role }).where(inOrg(orgId, userId));

/** Deletes the user record: their API keys and sessions go with it (foreign keys cascade). */
export const removeUser = (db: Db, orgId: string, userId: string) => db.delete(users).where(inOrg(orgId, userId));

export const findUserByEmail = async (db: Db, email: string) =>
  (
    await db
      .select({ id: users.id, orgId: users.orgId, role: users.role })
      .from(users)
      .where(sql`lower(${users.email}) = lower(${email})`)
      .for('update')
  )[0];

export const getOrganizationName = async (db: Db, orgId: string) =>
  (await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)))[0]?.name;

/** A member who joined through an invitation: the emailed link proved the address. */
export const insertInvitedUser = async (
  db: Db,
  values: { orgId: string; email: string; role: Role; acceptedAt: Date },
) =>
  first(
    await db
      .insert(users)
      .values({ ...values, name: '', emailVerified: true })
      .returning({ id: users.id }),
    'the inserted user',
  );

/**
 * Moves a user into another organisation. Their API keys belong to the organisation they leave and their
 * sessions were signed in there, so both are deleted first (a new session is made by the caller).
 */
export async function moveUser(db: Db, userId: string, values: { orgId: string; role: Role; acceptedAt: Date }) {
  await db.delete(apiKeys).where(eq(apiKeys.userId, userId));
  await db.delete(sessions).where(eq(sessions.userId, userId));
  await db
    .update(users)
    .set({ ...values, emailVerified: true })
    .where(eq(users.id, userId));
}

/** Locks the organisation row against concurrent inserts of data referencing it (they take KEY SHARE). */
export const lockOrganizationForDelete = (db: Db, orgId: string) =>
  db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for('update');

const dataHeld = prepared<{ held: boolean }, { orgId: string }>(
  'team_holds_data',
  `SELECT EXISTS (SELECT 1 FROM folders WHERE org_id = :orgId)
       OR EXISTS (SELECT 1 FROM subnets WHERE org_id = :orgId)
       OR EXISTS (SELECT 1 FROM addresses WHERE org_id = :orgId)
       OR EXISTS (SELECT 1 FROM vlans WHERE org_id = :orgId)
       OR EXISTS (SELECT 1 FROM vrfs WHERE org_id = :orgId)
       OR EXISTS (SELECT 1 FROM locations WHERE org_id = :orgId) AS held`,
);

/** Whether the organisation holds any IPAM data. */
export async function holdsData(db: Db, orgId: string): Promise<boolean> {
  return first(await dataHeld(db, { orgId }), 'whether the organisation holds data').held;
}

/** Destroys the session a browser still carries when it signs in again (rotation). */
export const deleteSessionByHash = (db: Db, tokenHash: string) =>
  db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));

export const deleteOrganization = (db: Db, orgId: string) =>
  db.delete(organizations).where(eq(organizations.id, orgId));
