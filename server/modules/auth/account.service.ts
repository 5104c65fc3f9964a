import type { Db } from '../../db/connection';
import { badRequest, unauthenticated } from '../../errors';
import type { Principal } from '../../principal';
import { lockOrganization } from '../identity/identity.service';
import { commitTransaction } from '../writes/writes';
import * as repo from './auth.repo';

/**
 * Deletes the caller's user, their sessions and API keys. The last member takes the organisation and
 * all its data with them; the last admin of an organisation with other members is refused
 * (400 `last_admin`). The organisation row is locked, so concurrent departures or role changes cannot
 * leave members without an admin. Answers whether the organisation was deleted.
 */
export async function deleteAccount(db: Db, caller: Principal): Promise<{ organizationDeleted: boolean }> {
  return commitTransaction(db, async (tx) => {
    await lockOrganization(tx, caller.orgId);
    const members = await repo.memberRoles(tx, caller.orgId);
    const me = members.find((m) => m.id === caller.userId);
    if (!me) throw unauthenticated('Your account no longer exists');
    const others = members.filter((m) => m.id !== caller.userId);
    if (others.length === 0) {
      await repo.deleteOrganization(tx, caller.orgId);
      return { organizationDeleted: true };
    }
    if (me.role === 'admin' && !others.some((m) => m.role === 'admin')) {
      throw badRequest(
        'You are the last admin of an organisation with other members: make another member admin, or remove the other members, before deleting your account',
        'last_admin',
      );
    }
    await repo.deleteUser(tx, caller.orgId, caller.userId);
    return { organizationDeleted: false };
  });
}
