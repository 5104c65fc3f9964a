/** The system traceroute program, run without a shell, its output parsed. */
import type { z } from 'zod';
import type { ToolsTraceroute, TraceRouteQuery } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function traceRoute(
  _tools: Tools,
  _query: z.infer<typeof TraceRouteQuery>,
): Promise<z.infer<typeof ToolsTraceroute>> {
  throw notImplemented();
}
