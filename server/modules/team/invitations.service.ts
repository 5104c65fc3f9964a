import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { CreateTeamInvitationBody, TeamInvitation } from '../../../contract/team.contract';
import type { ServerContext } from '../../context';
import type { Db } from '../../db/connection';
import { transaction } from '../../db/pipeline';
import { duplicate, HttpError } from '../../errors';
import type { Principal } from '../../principal';
import { recordActivity } from '../activity/activity.service';
import * as identity from '../identity/identity.service';
import { lockOrganization } from '../identity/identity.service';
import { assertLimitLocked } from '../identity/limit-check';
import { hashToken } from '../identity/tokens';
import { orNotFound } from '../shared/results';
import { commitTransaction } from '../writes/writes';
import * as invitations from './invitations.repo';
import * as team from './team.repo';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const INVITATIONS_PER_HOUR = 10;

type InvitationDto = z.infer<typeof TeamInvitation>;

const toDto = (row: invitations.InvitationRow): InvitationDto => ({
  id: row.id,
  email: row.email,
  role: row.role,
  expires_at: row.expiresAt.toISOString(),
  created_at: row.createdAt.toISOString(),
});

const acceptLink = (publicUrl: string, token: string) =>
  `${publicUrl}/api/v1/auth/accept-invite?token=${encodeURIComponent(token)}`;

/**
 * What refuses an invitation, in the order of checks: seats (402: members plus pending invitations, the
 * plan's Users row), then business rules (400: already a member, already invited).
 */
async function assertInvitable(db: Db, orgId: string, email: string, now: Date) {
  await assertLimitLocked(
    db,
    { orgId },
    'users',
    async () => (await team.countMembers(db, orgId)) + (await invitations.countPending(db, orgId, now)),
  );
  if (await team.isMemberEmail(db, orgId, email)) throw duplicate(`${email} is already a member of the organisation`);
  if (await invitations.hasPendingFor(db, orgId, email, now)) {
    throw duplicate(`An invitation to ${email} is already pending; cancel it to send a new one`);
  }
}

/**
 * Checks, then spends one of the organisation's 10 invitations per hour, then checks again and inserts
 * with the organisation row locked. Only invitations that would be sent count against the hourly limit;
 * the counter is hit outside the transaction so it never waits for a connection while holding the lock.
 */
export async function createInvitation(
  context: ServerContext,
  caller: Principal,
  input: z.infer<typeof CreateTeamInvitationBody>,
): Promise<InvitationDto> {
  const { db } = context;
  const now = context.now();
  await assertInvitable(db, caller.orgId, input.email, now);
  const rate = await context.limiter.hit(`invitations:${caller.orgId}`, INVITATIONS_PER_HOUR, 3600_000);
  if (!rate.allowed) {
    throw new HttpError(
      429,
      'rate_limited',
      `At most ${INVITATIONS_PER_HOUR} invitations per organisation per hour; retry in ${rate.retryAfterSeconds} s`,
      { 'Retry-After': String(rate.retryAfterSeconds) },
    );
  }
  const token = randomBytes(32).toString('base64url');
  const row = await transaction(db, async (tx) => {
    await lockOrganization(tx, caller.orgId);
    await assertInvitable(tx, caller.orgId, input.email, now);
    const invitation = await invitations.insert(tx, {
      orgId: caller.orgId,
      email: input.email,
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy: caller.userId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      createdAt: now,
    });
    await recordActivity(tx, caller, {
      action: 'invite',
      resourceType: 'invitation',
      resourceId: invitation.id,
      changes: { email: [null, invitation.email], role: [null, invitation.role] },
    });
    return invitation;
  });
  try {
    await sendInvitation(context, row, token);
  } catch (error) {
    // An invitation nobody received must not hold a seat.
    await invitations.removeUnaccepted(db, caller.orgId, row.id);
    throw error;
  }
  return toDto(row);
}

async function sendInvitation(context: ServerContext, row: invitations.InvitationRow, token: string) {
  const orgName = (await team.getOrganizationName(context.db, row.orgId)) ?? 'an organisation';
  await context.mailer.send({
    to: row.email,
    subject: `You are invited to join ${orgName} on IPAM`,
    text:
      `You have been invited to join ${orgName} as ${row.role}.\n\n` +
      `Accept the invitation (valid 7 days, usable once):\n${acceptLink(context.config.publicUrl, token)}\n\n` +
      'If you did not expect this invitation, ignore this email.\n',
  });
}

export async function listInvitations(context: ServerContext, caller: Principal): Promise<InvitationDto[]> {
  return (await invitations.listPending(context.db, caller.orgId, context.now())).map(toDto);
}

/** Cancels an invitation not yet accepted (an expired one too): its link stops working, its seat is freed. */
export async function cancelInvitation(context: ServerContext, caller: Principal, id: string) {
  await commitTransaction(context.db, async (tx) => {
    const invitation = orNotFound(await invitations.removeUnaccepted(tx, caller.orgId, id), 'Invitation');
    await recordActivity(tx, caller, {
      action: 'delete',
      resourceType: 'invitation',
      resourceId: id,
      changes: { email: [invitation.email, null], role: [invitation.role, null] },
    });
  });
  return { message: 'Invitation cancelled' };
}

export type AcceptOutcome =
  | { ok: true; session: string }
  | { ok: false; error: 'invalid_invitation' | 'invitation_conflict' };

/**
 * Consumes the invitation once (its row is locked until commit) and signs the invited address in:
 * an unknown address becomes a new member; a member of another organisation moves over when that
 * organisation would be left empty and holds no data (it is then deleted), otherwise the acceptance is
 * refused and the invitation stays usable. An existing member of the inviting organisation keeps their role.
 * A session the browser still carries is destroyed (rotation, as at every sign-in).
 */
export async function acceptInvitation(
  context: ServerContext,
  token: string,
  previousSession: string | undefined,
): Promise<AcceptOutcome> {
  const now = context.now();
  return transaction(context.db, async (tx): Promise<AcceptOutcome> => {
    const invitation = await invitations.lockUnacceptedByToken(tx, hashToken(token));
    if (!invitation || invitation.expiresAt <= now) return { ok: false, error: 'invalid_invitation' };
    const user = await team.findUserByEmail(tx, invitation.email);
    let userId: string;
    if (!user) {
      const values = { orgId: invitation.orgId, email: invitation.email, role: invitation.role, acceptedAt: now };
      userId = (await team.insertInvitedUser(tx, values)).id;
    } else if (user.orgId === invitation.orgId) {
      userId = user.id;
    } else {
      await team.lockOrganizationForDelete(tx, user.orgId);
      if ((await team.countMembers(tx, user.orgId)) > 1 || (await team.holdsData(tx, user.orgId))) {
        return { ok: false, error: 'invitation_conflict' };
      }
      await team.moveUser(tx, user.id, { orgId: invitation.orgId, role: invitation.role, acceptedAt: now });
      await team.deleteOrganization(tx, user.orgId);
      userId = user.id;
    }
    await invitations.markAccepted(tx, invitation.id, now);
    await recordActivity(
      tx,
      { orgId: invitation.orgId, userId },
      {
        action: 'create',
        resourceType: 'member',
        resourceId: userId,
        changes: { email: [null, invitation.email], role: [null, invitation.role] },
      },
    );
    if (previousSession) await team.deleteSessionByHash(tx, hashToken(previousSession));
    return { ok: true, session: await identity.createSession(tx, userId, now) };
  });
}
