/**
 * Who a request's API key or session belongs to, cached in memory: authentication is on every request,
 * and the answer changes seldom. The cache is trusted only while the database's change feed is reliable;
 * triggers notify every change of keys, sessions, users and organisations, and the whole cache is then
 * dropped (a change made through this process is heard with its COMMIT, before its request answers; one
 * made by another process as soon as PostgreSQL delivers the notification). A lookup that started before
 * a change never fills the cache after it (the generation check).
 */

import type { Db } from '../../db/connection';
import { changeFeedOf } from '../../db/connection';
import { unauthenticated } from '../../errors';
import { readCookie } from '../../http/cookies';
import type { Principal } from '../../principal';
import * as repo from './identity.repo';
import { API_KEY_PATTERN, hashToken, SESSION_COOKIE } from './tokens';

/** How long an answer is kept at most (a safety net: changes are notified). */
const TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;

export function principalLookup(db: Db) {
  const feed = changeFeedOf(db);
  const entries = new Map<string, { principal: Principal; until: number }>();
  let generation = 0;
  feed?.subscribe('principals_changed', () => {
    generation++;
    entries.clear();
  });
  const usable = () => feed?.reliable() === true;

  async function cached(
    key: string,
    load: () => Promise<{ principal: Principal; expiresAt: Date | null } | null>,
  ): Promise<Principal | null> {
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.until > now && usable()) return hit.principal;
    const started = generation;
    const found = await load();
    if (!found) return null;
    if (usable() && generation === started) {
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const until = Math.min(now + TTL_MS, found.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
      entries.set(key, { principal: found.principal, until });
    }
    return found.principal;
  }

  const byKeyHash = (hash: string) =>
    cached(`key:${hash}`, async () => {
      const principal = await repo.findPrincipalByKeyHash(db, hash);
      return principal && { principal, expiresAt: null };
    });
  const bySessionHash = (hash: string) => cached(`session:${hash}`, () => repo.findPrincipalBySessionHash(db, hash));

  /** The caller of a request's credentials: the API key if sent, else the session cookie; 401 otherwise. */
  async function identify(authorization: string | undefined, cookie: string | undefined): Promise<Principal> {
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!match) throw unauthenticated('Malformed Authorization header: expected "Bearer svc_…"');
      if (!API_KEY_PATTERN.test(match[1]))
        throw unauthenticated('Malformed API key: expected svc_ followed by 64 characters');
      const principal = await byKeyHash(hashToken(match[1]));
      if (!principal) throw unauthenticated('Unknown or revoked API key');
      return principal;
    }
    const session = readCookie(cookie, SESSION_COOKIE);
    if (session) {
      const principal = await bySessionHash(hashToken(session));
      if (!principal) throw unauthenticated('Session expired or signed out; sign in again');
      return principal;
    }
    throw unauthenticated(
      'Authentication required: send "Authorization: Bearer <API key>" or the service_session cookie',
    );
  }

  return {
    identify,
    /** Records a key's use at most once a minute, so most requests write nothing. */
    touch(principal: Principal) {
      if (!principal.keyId) return;
      const now = new Date();
      if (principal.lastUsedAt && now.getTime() - principal.lastUsedAt.getTime() < 60_000) return;
      principal.lastUsedAt = now; // the cached answer too: the next minute's requests skip the write
      repo.touchKey(db, principal.keyId).catch(() => {});
    },
  };
}
export type PrincipalLookup = ReturnType<typeof principalLookup>;
