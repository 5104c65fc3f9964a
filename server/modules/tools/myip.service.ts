/** /tools/myip: the caller's address as the service sees it (the connection, through a trusted proxy). */
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { ToolsMyIp } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

/** What a tool sees of the caller's request (the client address as the trust-proxy setting yields it). */
export interface CallerRequest {
  ip: string | undefined;
  method: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
}

export async function myIp(_tools: Tools, _caller: CallerRequest): Promise<z.infer<typeof ToolsMyIp>> {
  throw notImplemented();
}
