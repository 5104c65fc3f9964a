/** WHOIS over port 43 from the root through its referrals, RDAP as a fallback, parsed. */
import type { z } from 'zod';
import type { LookupWhoisQuery, ToolsWhoisLookup } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function lookupWhois(
  _tools: Tools,
  _query: z.infer<typeof LookupWhoisQuery>,
): Promise<z.infer<typeof ToolsWhoisLookup>> {
  throw notImplemented();
}
