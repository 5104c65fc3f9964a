import { Role as RoleEnum } from '../../../contract/common/enums';
import type { Db } from '../../db/connection';
import { badRequest, unauthenticated } from '../../errors';
import { LIMIT_NAMES, type LimitName, PLANS, type Plan } from '../plans/limits';
import * as repo from './identity.repo';

/** For other modules' limit checks and team changes: the organisation row, read or locked in a transaction. */
export { getOrganization, lockOrganization, lockOrganizationStep } from './identity.repo';

import { transaction } from '../../db/pipeline';
import type { Role } from '../../principal';
import { API_KEY_PREFIX_LENGTH, hashToken, newApiKey, newSessionToken, SESSION_TTL_MS } from './tokens';

const ROLES = RoleEnum.options;

function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'org'
  );
}

/**
 * The user with this email, created with a new organisation when unknown (as on first sign-in: plan
 * free, the user its admin unless another role is asked for).
 */
export async function ensureUser(db: Db, email: string, options: { plan?: Plan; role?: Role } = {}) {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest(`Invalid email address: ${email}`);
  if (options.plan && !PLANS.includes(options.plan))
    throw badRequest(`Unknown plan ${options.plan}; use ${PLANS.join(', ')}`);
  if (options.role && !ROLES.includes(options.role))
    throw badRequest(`Unknown role ${options.role}; use ${ROLES.join(', ')}`);
  return transaction(db, async (tx) => {
    const existing = await repo.findUserByEmail(tx, email);
    if (existing) {
      if (options.role && options.role !== existing.role) await repo.updateUserRole(tx, existing.id, options.role);
      if (options.plan) await repo.updateOrganization(tx, existing.orgId, { plan: options.plan });
      return { ...existing, role: options.role ?? existing.role };
    }
    const [local = ''] = email.split('@');
    const base = slugify(local);
    let slug = base;
    for (let n = 2; await repo.slugExists(tx, slug); n++) slug = `${base}-${n}`;
    const org = await repo.insertOrganization(tx, { name: local.slice(0, 100), slug, plan: options.plan ?? 'free' });
    return repo.insertUser(tx, { orgId: org.id, email, name: '', role: options.role ?? 'admin' });
  });
}

export async function createApiKey(
  db: Db,
  user: { id: string; orgId: string },
  name: string,
  permissions: ('read' | 'write')[] = ['read', 'write'],
) {
  const key = newApiKey();
  const row = await repo.insertApiKey(db, {
    orgId: user.orgId,
    userId: user.id,
    name,
    keyHash: hashToken(key),
    keyPrefix: key.slice(0, API_KEY_PREFIX_LENGTH),
    permissions: [...new Set(permissions)],
  });
  if (!row) throw unauthenticated('The user was removed from the organisation while the request ran');
  return { id: row.id, key };
}

/** A new server-side session; answers the cookie value (only its hash is stored). */
export async function createSession(db: Db, userId: string, now: Date = new Date()): Promise<string> {
  const token = newSessionToken();
  await repo.insertSession(db, {
    userId,
    tokenHash: hashToken(token),
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  });
  return token;
}

export async function setPlan(db: Db, email: string, plan: Plan) {
  if (!PLANS.includes(plan)) throw badRequest(`Unknown plan ${plan}; use ${PLANS.join(', ')}`);
  const user = await requireUser(db, email);
  await repo.updateOrganization(db, user.orgId, { plan });
}

/** Per-organisation limit overrides (enterprise "custom" figures); `null` means unlimited. */
export async function setLimits(db: Db, email: string, limits: Partial<Record<LimitName, number | null>>) {
  for (const name of Object.keys(limits)) {
    if (!LIMIT_NAMES.includes(name as LimitName))
      throw badRequest(`Unknown limit ${name}; use ${LIMIT_NAMES.join(', ')}`);
  }
  const user = await requireUser(db, email);
  const org = await repo.getOrganization(db, user.orgId);
  await repo.updateOrganization(db, user.orgId, { limitOverrides: { ...org?.limitOverrides, ...limits } });
}

async function requireUser(db: Db, email: string) {
  const user = await repo.findUserByEmail(db, email);
  if (!user) throw badRequest(`No user with email ${email}; create one with create-key or create-session first`);
  return user;
}
