/** /tools/headers: the caller's own request, or a remote URL's response headers with a security checklist. */
import type { z } from 'zod';
import type { InspectHttpHeadersQuery, ToolsHeadersResult } from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { CallerRequest } from './myip.service';
import type { Tools } from './tools';

export async function inspectHeaders(
  _tools: Tools,
  _query: z.infer<typeof InspectHttpHeadersQuery>,
  _caller: CallerRequest,
): Promise<z.infer<typeof ToolsHeadersResult>> {
  throw notImplemented();
}
