import { createHash, randomBytes } from 'node:crypto';

/** `svc_` + 64 URL-safe characters: 68 in all, 384 random bits. */
export const API_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{64}$/;
export const API_KEY_PREFIX_LENGTH = 12;
export const SESSION_COOKIE = 'service_session';
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

export const newApiKey = () => `svc_${randomBytes(48).toString('base64url')}`;
export const newSessionToken = () => randomBytes(32).toString('base64url');
/** Only hashes are stored, so a database leak reveals no usable credential. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
