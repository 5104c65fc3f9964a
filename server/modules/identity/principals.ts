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
/** Unknown credentials remembered: a separate, smaller map, so a flood of random keys evicts no real caller. */
const MAX_UNKNOWN = 10_000;

export interface PrincipalLookupOptions {
  /** Told of every lookup that reached the database, and whether it found a caller (the metrics count them). */
  onDatabaseLookup?: (found: boolean) => void;
}

export function principalLookup(db: Db, options: PrincipalLookupOptions = {}) {
  const feed = changeFeedOf(db);
  const entries = new Map<string, { principal: Principal; until: number }>();
  // A key or session that is not in the database: asked again within the TTL, it is answered 401 without a
  // query (a new key or session cannot be one of these: the change that makes it empties this map).
  const unknown = new Map<string, number>();
  let generation = 0;
  feed?.subscribe('principals_changed', () => {
    generation++;
    entries.clear();
    unknown.clear();
  });
  const usable = () => feed?.reliable() === true;

  /** The cached answer for a credential: a caller, null when known to be unknown, undefined when not cached. */
  function fromCache(key: string, now: number): Principal | null | undefined {
    if (!usable()) return undefined;
    const hit = entries.get(key);
    if (hit && hit.until > now) return hit.principal;
    const unknownUntil = unknown.get(key);
    if (unknownUntil !== undefined && unknownUntil > now) return null;
    return undefined;
  }

  async function cached(
    key: string,
    load: () => Promise<{ principal: Principal; expiresAt: Date | null } | null>,
  ): Promise<Principal | null> {
    const now = Date.now();
    const hit = fromCache(key, now);
    if (hit !== undefined) return hit;
    const started = generation;
    const found = await load();
    options.onDatabaseLookup?.(found !== null);
    const keep = usable() && generation === started;
    if (!found) {
      if (keep) {
        if (unknown.size >= MAX_UNKNOWN) unknown.clear();
        unknown.set(key, now + TTL_MS);
      }
      return null;
    }
    if (keep) {
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

  /** The credential a request sends, as the cache knows it (`key:` or `session:` and its hash); 401 otherwise. */
  function credentialOf(authorization: string | undefined, cookie: string | undefined): string {
    if (authorization !== undefined) {
      const key = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
      if (key === undefined) throw unauthenticated('Malformed Authorization header: expected "Bearer svc_…"');
      if (!API_KEY_PATTERN.test(key))
        throw unauthenticated('Malformed API key: expected svc_ followed by 64 characters');
      return `key:${hashToken(key)}`;
    }
    const session = readCookie(cookie, SESSION_COOKIE);
    if (session) return `session:${hashToken(session)}`;
    throw unauthenticated(
      'Authentication required: send "Authorization: Bearer <API key>" or the service_session cookie',
    );
  }

  /** The caller of a request's credentials: the API key if sent, else the session cookie; 401 otherwise. */
  async function identify(authorization: string | undefined, cookie: string | undefined): Promise<Principal> {
    const credential = credentialOf(authorization, cookie);
    const isKey = credential.startsWith('key:');
    const hash = credential.slice(credential.indexOf(':') + 1);
    const principal = await (isKey ? byKeyHash(hash) : bySessionHash(hash));
    if (!principal)
      throw unauthenticated(isKey ? 'Unknown or revoked API key' : 'Session expired or signed out; sign in again');
    return principal;
  }

  return {
    identify,
    /** The caller of these credentials when the cache holds it, without asking the database; else null. */
    known(authorization: string | undefined, cookie: string | undefined): Principal | null {
      try {
        return fromCache(credentialOf(authorization, cookie), Date.now()) ?? null;
      } catch {
        return null;
      }
    },
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
