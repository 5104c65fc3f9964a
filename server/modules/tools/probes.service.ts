/** TCP probes: ping (connect time) and port scans. */
import type { z } from 'zod';
import type { PingHostQuery, ScanPortsQuery, ToolsPing, ToolsPortScan } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function pingHost(
  _tools: Tools,
  _query: z.infer<typeof PingHostQuery>,
): Promise<z.infer<typeof ToolsPing>> {
  throw notImplemented();
}

export async function scanPorts(
  _tools: Tools,
  _query: z.infer<typeof ScanPortsQuery>,
): Promise<z.infer<typeof ToolsPortScan>> {
  throw notImplemented();
}
