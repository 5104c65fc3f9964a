/**
 * The value of one cookie of a Cookie header, or undefined when it is absent or not valid percent-encoding
 * (a malformed cookie is the client's fault and reads as no cookie, never as an error).
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
