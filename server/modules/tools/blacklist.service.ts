/** DNS blocklists: is an address listed on 7 maintained DNSBL zones. */
import type { z } from 'zod';
import type { CheckIpBlacklistQuery, ToolsBlacklistCheck } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function checkIpBlacklist(
  _tools: Tools,
  _query: z.infer<typeof CheckIpBlacklistQuery>,
): Promise<z.infer<typeof ToolsBlacklistCheck>> {
  throw notImplemented();
}
