import { and, count, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { invitations } from '../../db/schema';
import type { Role } from '../../principal';
import { first } from '../shared/rows';

export type InvitationRow = typeof invitations.$inferSelect;

/** Not accepted and not expired at `now`: the invitations that hold a seat and are listed. */
const pending = (orgId: string, now: Date) =>
  and(eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now));

export const listPending = (db: Db, orgId: string, now: Date) =>
  db.select().from(invitations).where(pending(orgId, now)).orderBy(desc(invitations.createdAt), desc(invitations.id));

export const countPending = async (db: Db, orgId: string, now: Date) =>
  first(await db.select({ n: count() }).from(invitations).where(pending(orgId, now)), 'a count of invitations').n;

export const hasPendingFor = async (db: Db, orgId: string, email: string, now: Date) =>
  (
    await db
      .select({ id: invitations.id })
      .from(invitations)
      .where(and(pending(orgId, now), sql`lower(${invitations.email}) = lower(${email})`))
  ).length > 0;

export const insert = async (
  db: Db,
  values: {
    orgId: string;
    email: string;
    role: Role;
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
    createdAt: Date;
  },
) =>
  first(
    await db
      .insert(invitations)
      // The inviter kept from being deleted until the transaction ends, or null when removed meanwhile (as
      // ON DELETE SET NULL leaves older invitations), where the foreign key would refuse the row.
      .values({ ...values, invitedBy: sql`(SELECT u.id FROM users u WHERE u.id = ${values.invitedBy} FOR KEY SHARE)` })
      .returning(),
    'the inserted invitation',
  );

/** Deletes an invitation not yet accepted (expired ones too); answers its id when one was deleted. */
export const removeUnaccepted = async (db: Db, orgId: string, id: string) =>
  (
    await db
      .delete(invitations)
      .where(and(eq(invitations.orgId, orgId), eq(invitations.id, id), isNull(invitations.acceptedAt)))
      .returning({ id: invitations.id, email: invitations.email, role: invitations.role })
  )[0];

/**
 * The unaccepted invitation with this token hash, locked for the rest of the transaction: a concurrent
 * acceptance of the same link waits, then finds it accepted.
 */
export const lockUnacceptedByToken = async (db: Db, tokenHash: string) =>
  (
    await db
      .select()
      .from(invitations)
      .where(and(eq(invitations.tokenHash, tokenHash), isNull(invitations.acceptedAt)))
      .for('update')
  )[0];

export const markAccepted = (db: Db, id: string, at: Date) =>
  db.update(invitations).set({ acceptedAt: at }).where(eq(invitations.id, id));
