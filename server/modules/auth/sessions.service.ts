import type { z } from 'zod';
import type { AuthMe } from '../../../contract/auth.contract';
import type { Db } from '../../db/connection';
import { isUniqueViolation, unauthenticated } from '../../errors';
import { readCookie } from '../../http/cookies';
import type { Principal } from '../../principal';
import * as identity from '../identity/identity.service';
import { hashToken, SESSION_COOKIE } from '../identity/tokens';
import * as repo from './auth.repo';

/**
 * Signs a person in whose address a sign-in method just proved: finds their user or creates it with a
 * new organisation (plan free, the user its admin), marks the address verified and opens a session.
 * A session cookie the browser still carries is destroyed first (rotation). Answers the new cookie value.
 */
export async function signIn(
  db: Db,
  person: { email: string; name?: string },
  previousCookies: string | undefined,
  now: Date,
): Promise<string> {
  const previous = readCookie(previousCookies, SESSION_COOKIE);
  if (previous) await repo.deleteSessionByHash(db, hashToken(previous));
  const user = await findOrCreateUser(db, person.email);
  await repo.markSignedIn(db, user.id, person.name ?? '');
  return identity.createSession(db, user.id, now);
}

/** Two first sign-ins of one address at once: the loser of the insert race finds the winner's user. */
async function findOrCreateUser(db: Db, email: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await identity.ensureUser(db, email);
    } catch (error) {
      if (attempt >= 3 || !isUniqueViolation(error)) throw error;
    }
  }
}

export async function currentUser(db: Db, caller: Principal): Promise<z.infer<typeof AuthMe>> {
  const row = await repo.getUserWithOrganization(db, caller.orgId, caller.userId);
  if (!row) throw unauthenticated('Your account no longer exists');
  const { user, organization } = row;
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      email_verified: user.emailVerified,
      created_at: user.createdAt.toISOString(),
    },
    organization: {
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      plan: organization.plan,
      created_at: organization.createdAt.toISOString(),
      updated_at: organization.updatedAt.toISOString(),
    },
    role: user.role,
  };
}

/**
 * Destroys the session the caller authenticated with. With an API key there is no session: nothing is
 * destroyed (revoke keys with DELETE /api-keys/{id}). Answers whether a session was ended.
 */
export async function endSession(db: Db, caller: Principal, cookies: string | undefined): Promise<boolean> {
  if (caller.keyId !== null) return false;
  const token = readCookie(cookies, SESSION_COOKIE);
  if (token) await repo.deleteSessionByHash(db, hashToken(token));
  return true;
}
