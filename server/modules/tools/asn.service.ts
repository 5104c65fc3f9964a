/** The autonomous system of an address, or an AS number's details (Team Cymru's DNS interface, RDAP fallback). */
import type { z } from 'zod';
import type { LookupAsnQuery, ToolsAsnLookup } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function lookupAsn(
  _tools: Tools,
  _query: z.infer<typeof LookupAsnQuery>,
): Promise<z.infer<typeof ToolsAsnLookup>> {
  throw notImplemented();
}
