/** DNS lookups at public resolvers, their propagation, and reverse DNS (RDNS with FCrDNS). */
import type { z } from 'zod';
import type {
  CheckDnsPropagationQuery,
  LookupDnsQuery,
  LookupReverseDnsQuery,
  ToolsDnsLookup,
  ToolsDnsPropagation,
  ToolsRdnsLookup,
} from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function lookupDns(
  _tools: Tools,
  _query: z.infer<typeof LookupDnsQuery>,
): Promise<z.infer<typeof ToolsDnsLookup>> {
  throw notImplemented();
}

export async function checkDnsPropagation(
  _tools: Tools,
  _query: z.infer<typeof CheckDnsPropagationQuery>,
): Promise<z.infer<typeof ToolsDnsPropagation>> {
  throw notImplemented();
}

export async function lookupReverseDns(
  _tools: Tools,
  _query: z.infer<typeof LookupReverseDnsQuery>,
): Promise<z.infer<typeof ToolsRdnsLookup>> {
  throw notImplemented();
}
