import type { z } from 'zod';
import type { ApiKey, CreateApiKeyBody, CreatedApiKey } from '../../../contract/api-keys.contract';
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { recordActivity } from '../activity/activity.service';
import * as identity from '../identity/identity.service';
import { assertLimitLocked } from '../identity/limit-check';
import { orNotFound } from '../shared/results';
import { commitTransaction } from '../writes/writes';
import * as repo from './api-keys.repo';

type ApiKeyDto = z.infer<typeof ApiKey>;
type Permission = 'read' | 'write';

/** Scopes in a stable order, whatever order they were given in. */
const ordered = (permissions: Permission[]): Permission[] =>
  (['read', 'write'] as const).filter((p) => permissions.includes(p));

const toDto = (row: Awaited<ReturnType<typeof repo.get>> & object): ApiKeyDto => ({
  id: row.id,
  name: row.name,
  key_prefix: row.keyPrefix,
  permissions: ordered(row.permissions),
  created_at: row.createdAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
});

/** Whose keys the caller manages: an admin every key of the organisation (null), anyone else their own. */
const ownerScope = (caller: Principal) => (caller.role === 'admin' ? null : caller.userId);

export async function listApiKeys(db: Db, caller: Principal): Promise<ApiKeyDto[]> {
  return (await repo.list(db, caller.orgId, ownerScope(caller))).map(toDto);
}

/** A key acting for the caller; the plan's key limit is per organisation, checked with the org row locked. */
export async function createApiKey(
  db: Db,
  caller: Principal,
  input: z.infer<typeof CreateApiKeyBody>,
): Promise<z.infer<typeof CreatedApiKey>> {
  return commitTransaction(db, async (tx) => {
    await assertLimitLocked(tx, caller, 'api_keys', () => repo.countInOrg(tx, caller.orgId));
    const permissions = ordered(input.permissions);
    const { id, key } = await identity.createApiKey(
      tx,
      { id: caller.userId, orgId: caller.orgId },
      input.name,
      permissions,
    );
    const row = orNotFound(await repo.get(tx, caller.orgId, id), 'API key');
    await recordActivity(tx, caller, {
      action: 'create',
      resourceType: 'api_key',
      resourceId: id,
      changes: { name: [null, row.name], permissions: [null, row.permissions] },
    });
    const { last_used_at: _, ...dto } = toDto(row);
    return { ...dto, key };
  });
}

/** Deletes at once, so the next request with the key is a 401. Another member's key is a 404 to a non-admin. */
export async function revokeApiKey(db: Db, caller: Principal, id: string): Promise<void> {
  await commitTransaction(db, async (tx) => {
    const key = orNotFound(await repo.remove(tx, caller.orgId, id, ownerScope(caller)), 'API key');
    await recordActivity(tx, caller, {
      action: 'revoke',
      resourceType: 'api_key',
      resourceId: id,
      changes: { name: [key.name, null], permissions: [key.permissions, null] },
    });
  });
}
