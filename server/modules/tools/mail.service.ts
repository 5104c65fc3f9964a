/** SPF (RFC 7208) and DMARC (RFC 7489) records analysed. */
import type { z } from 'zod';
import type {
  CheckDmarcRecordQuery,
  CheckSpfRecordQuery,
  ToolsDmarcCheck,
  ToolsSpfCheck,
} from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function checkSpfRecord(
  _tools: Tools,
  _query: z.infer<typeof CheckSpfRecordQuery>,
): Promise<z.infer<typeof ToolsSpfCheck>> {
  throw notImplemented();
}

export async function checkDmarcRecord(
  _tools: Tools,
  _query: z.infer<typeof CheckDmarcRecordQuery>,
): Promise<z.infer<typeof ToolsDmarcCheck>> {
  throw notImplemented();
}
