import { badRequest } from '../../errors';

/**
 * A time a client sent (an RFC 3339 string the contract checked), as PostgreSQL can read it: the contract takes
 * year 0000, which PostgreSQL refuses (a 500 if sent on); a 400 naming `field` instead.
 */
export function postgresTime(field: string, text: string): string;
export function postgresTime(field: string, text: string | undefined): string | undefined;
export function postgresTime(field: string, text: string | undefined) {
  if (text !== undefined && !(new Date(text).getUTCFullYear() >= 1)) {
    throw badRequest(`${field}: ${text} is before year 1`);
  }
  return text;
}
