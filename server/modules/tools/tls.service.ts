/** TLS certificates and chains, and HTTP/2 support (ALPN, Alt-Svc). */
import type { z } from 'zod';
import type {
  CheckHttp2SupportQuery,
  CheckSslCertificateQuery,
  ToolsHttp2Check,
  ToolsSslCheck,
} from '../../../contract/tools.contract';
import { notImplemented } from '../../errors';
import type { Tools } from './tools';

export async function checkSslCertificate(
  _tools: Tools,
  _query: z.infer<typeof CheckSslCertificateQuery>,
): Promise<z.infer<typeof ToolsSslCheck>> {
  throw notImplemented();
}

export async function checkHttp2Support(
  _tools: Tools,
  _query: z.infer<typeof CheckHttp2SupportQuery>,
): Promise<z.infer<typeof ToolsHttp2Check>> {
  throw notImplemented();
}
