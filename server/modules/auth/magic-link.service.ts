import { randomBytes } from 'node:crypto';
import type { ServerContext } from '../../context';
import { transaction } from '../../db/pipeline';
import { HttpError } from '../../errors';
import { hashToken } from '../identity/tokens';
import * as repo from './auth.repo';
import { signIn } from './sessions.service';

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
/** At most this many links per address in any MAGIC_LINK_WINDOW_MS (a sliding window). */
export const MAGIC_LINKS_PER_WINDOW = 3;
export const MAGIC_LINK_WINDOW_MS = 15 * 60 * 1000;
/** Used and expired links are kept this long after expiry, to tell "used or expired" from "unknown". */
const KEEP_AFTER_EXPIRY_MS = 24 * 3600 * 1000;

export const SENT_MESSAGE =
  'If the address can receive mail, a sign-in link is on its way; it is valid for 15 minutes and works once';

/**
 * Emails a single-use sign-in link. The same answer whether or not the address has an account (a first
 * sign-in creates it). The 4th link to an address within 15 minutes is a 429: the count is of the links
 * stored, under a per-address lock, so it holds across server processes and at window edges.
 */
export async function sendMagicLink(context: ServerContext, email: string): Promise<void> {
  const { db, config, mailer } = context;
  const now = context.now();
  const token = randomBytes(32).toString('base64url');
  const tokenHash = hashToken(token);
  await transaction(db, async (tx) => {
    await repo.lockAddress(tx, email);
    const recent = await repo.recentLinks(tx, email, new Date(now.getTime() - MAGIC_LINK_WINDOW_MS));
    if (recent.count >= MAGIC_LINKS_PER_WINDOW) {
      const freeAt = (recent.oldest?.getTime() ?? now.getTime()) + MAGIC_LINK_WINDOW_MS;
      const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
      throw new HttpError(
        429,
        'rate_limited',
        `At most ${MAGIC_LINKS_PER_WINDOW} sign-in links per address every 15 minutes; try again in ${retryAfter} s`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    await repo.insertMagicLink(tx, {
      tokenHash,
      email,
      createdAt: now,
      expiresAt: new Date(now.getTime() + MAGIC_LINK_TTL_MS),
    });
  });
  await repo.purgeMagicLinks(db, new Date(now.getTime() - KEEP_AFTER_EXPIRY_MS));

  const link = `${config.publicUrl}/api/v1/auth/verify?token=${token}`;
  try {
    await mailer.send({
      to: email,
      subject: 'Your sign-in link',
      text:
        `Sign in to IPAM by opening this link:\n\n${link}\n\n` +
        'It is valid for 15 minutes and works once. If you did not ask to sign in, ignore this message.\n',
    });
  } catch (error) {
    // A link that never left does not count against the address's limit.
    await repo.deleteMagicLink(db, tokenHash);
    throw error;
  }
}

export type VerifyOutcome = { ok: true; sessionToken: string } | { ok: false; error: 'invalid_link' | 'expired_link' };

/**
 * Consumes the link (once: of two concurrent uses one wins) and signs its address in. A used, expired
 * or unknown token is refused: `expired_link` when it expired unused, `invalid_link` otherwise.
 */
export async function verifyMagicLink(
  context: ServerContext,
  token: string,
  cookies: string | undefined,
): Promise<VerifyOutcome> {
  const now = context.now();
  const tokenHash = hashToken(token);
  const email = await repo.consumeMagicLink(context.db, tokenHash, now);
  if (email === null) {
    const link = await repo.findMagicLink(context.db, tokenHash);
    const expired = link !== null && link.usedAt === null && link.expiresAt.getTime() <= now.getTime();
    return { ok: false, error: expired ? 'expired_link' : 'invalid_link' };
  }
  return { ok: true, sessionToken: await signIn(context.db, { email }, cookies, now) };
}
