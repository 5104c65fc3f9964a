import type { Response } from 'express';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../identity/tokens';

/** The browser's Google sign-in in progress: a random id naming its oauth_flows row. */
export const OAUTH_FLOW_COOKIE = 'service_oauth';
export const OAUTH_FLOW_TTL_MS = 10 * 60 * 1000;
/** Sent only to the Google routes (the callback lives under this path). */
const OAUTH_FLOW_PATH = '/api/v1/auth/oauth/google';

function serialize(name: string, value: string, options: { maxAgeMs: number; path: string; secure: boolean }): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Max-Age=${Math.floor(options.maxAgeMs / 1000)}`,
    `Path=${options.path}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Cookies are Secure when the service is reached over https (its public URL). */
export const secureCookies = (publicUrl: string) => publicUrl.startsWith('https:');

export function setSessionCookie(res: Response, token: string, secure: boolean): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, token, { maxAgeMs: SESSION_TTL_MS, path: '/', secure }));
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', { maxAgeMs: 0, path: '/', secure }));
}

export function setFlowCookie(res: Response, flowId: string, secure: boolean): void {
  res.append(
    'Set-Cookie',
    serialize(OAUTH_FLOW_COOKIE, flowId, { maxAgeMs: OAUTH_FLOW_TTL_MS, path: OAUTH_FLOW_PATH, secure }),
  );
}

export function clearFlowCookie(res: Response, secure: boolean): void {
  res.append('Set-Cookie', serialize(OAUTH_FLOW_COOKIE, '', { maxAgeMs: 0, path: OAUTH_FLOW_PATH, secure }));
}

/** A 307 to `location`; the handler then answers the contract's no-body 307. */
export function redirect(res: Response, location: string) {
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  return { status: 307 as const, body: undefined };
}
