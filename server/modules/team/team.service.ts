import type { z } from 'zod';
import type { TeamMember } from '../../../contract/team.contract';
import type { Db } from '../../db/connection';
import { badRequest } from '../../errors';
import type { Principal, Role } from '../../principal';
import { recordActivity } from '../activity/activity.service';
import { lockOrganization } from '../identity/identity.service';
import { orNotFound } from '../shared/results';
import { commitTransaction } from '../writes/writes';
import * as repo from './team.repo';

type TeamMemberDto = z.infer<typeof TeamMember>;

const toDto = (row: repo.MemberRow): TeamMemberDto => ({
  user_id: row.userId,
  email: row.email,
  name: row.name,
  role: row.role,
  accepted_at: row.acceptedAt.toISOString(),
});

const lastAdmin = (action: string) =>
  badRequest(
    `An organisation keeps at least one admin: ${action} the last admin is refused; make another member admin first`,
    'last_admin',
  );

export async function listMembers(db: Db, caller: Principal): Promise<TeamMemberDto[]> {
  return (await repo.listMembers(db, caller.orgId)).map(toDto);
}

/**
 * The organisation row is locked first, so two admins demoting each other at once cannot both succeed
 * and leave the organisation without an admin.
 */
export async function updateMemberRole(db: Db, caller: Principal, userId: string, role: Role) {
  return commitTransaction(db, async (tx) => {
    await lockOrganization(tx, caller.orgId);
    const member = orNotFound(await repo.getMember(tx, caller.orgId, userId), 'Team member');
    if (member.role === 'admin' && role !== 'admin' && (await repo.countAdmins(tx, caller.orgId)) <= 1) {
      throw lastAdmin('demoting');
    }
    if (member.role !== role) {
      await repo.setRole(tx, caller.orgId, userId, role);
      const changes = { role: [member.role, role] as [unknown, unknown] };
      await recordActivity(tx, caller, { action: 'role_change', resourceType: 'member', resourceId: userId, changes });
    }
    return { message: `${member.email} is now ${role}` };
  });
}

/** Deletes the member's user record, so their API keys and sessions answer 401 on the next request. */
export async function removeMember(db: Db, caller: Principal, userId: string) {
  return commitTransaction(db, async (tx) => {
    await lockOrganization(tx, caller.orgId);
    const member = orNotFound(await repo.getMember(tx, caller.orgId, userId), 'Team member');
    if (member.role === 'admin' && (await repo.countAdmins(tx, caller.orgId)) <= 1) throw lastAdmin('removing');
    await repo.removeUser(tx, caller.orgId, userId);
    await recordActivity(tx, caller, {
      action: 'remove_member',
      resourceType: 'member',
      resourceId: userId,
      changes: { email: [member.email, null], role: [member.role, null] },
    });
    return { message: `${member.email} was removed from the organisation` };
  });
}
