/**
 * Secrets kept for an idempotent replay (a new API key, a webhook signing secret), encrypted with the server's
 * key: AES-256-GCM under a key derived from SECRETS_KEY for this one use (HKDF), a fresh 96-bit nonce each
 * time, the owner's scope as associated data (so a sealed secret opens only for the row it was sealed for).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface Sealer {
  seal(secret: string, scope: string): string;
  /** The secret, or null when it was sealed under another server key (or altered). */
  open(sealed: string, scope: string): string | null;
}

export function sealer(serverKey: Buffer): Sealer {
  const key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'ipam idempotent replay secrets', 32));
  return {
    seal(secret, scope) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(Buffer.from(scope));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const parts = [nonce, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },
    open(text, scope) {
      const [version, nonce, tag, sealed] = text.split('.');
      if (version !== VERSION || !nonce || !tag || sealed === undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'))
          .setAAD(Buffer.from(scope))
          .setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
