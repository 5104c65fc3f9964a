import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { lookupAsn } from './asn.service';
import { checkIpBlacklist } from './blacklist.service';
import { checkDnsPropagation, lookupDns, lookupReverseDns } from './dns.service';
import { inspectHeaders } from './headers.service';
import { checkDmarcRecord, checkSpfRecord } from './mail.service';
import { type CallerRequest, myIp } from './myip.service';
import { pingHost, scanPorts } from './probes.service';
import { checkHttp2Support, checkSslCertificate } from './tls.service';
import { toolsOf } from './tools';
import { traceRoute } from './traceroute.service';
import { lookupWhois } from './whois.service';

const s = initServer();

const callerOf = (req: { ip?: string; method: string; httpVersion: string; headers: CallerRequest['headers'] }) => ({
  ip: req.ip,
  method: req.method,
  httpVersion: req.httpVersion,
  headers: req.headers,
});

export const toolsRouter = (context: ServerContext) => {
  const tools = toolsOf(context);
  /** A 200 with what `run` finds, run within the cap on tool requests at once. */
  const answer = async <T>(run: () => Promise<T>) => ({ status: 200 as const, body: await tools.limited(run) });
  return s.router(contract.tools, {
    lookupDns: ({ query }) => answer(() => lookupDns(tools, query)),
    checkDnsPropagation: ({ query }) => answer(() => checkDnsPropagation(tools, query)),
    lookupReverseDns: ({ query }) => answer(() => lookupReverseDns(tools, query)),
    lookupWhois: ({ query }) => answer(() => lookupWhois(tools, query)),
    checkSslCertificate: ({ query }) => answer(() => checkSslCertificate(tools, query)),
    checkSpfRecord: ({ query }) => answer(() => checkSpfRecord(tools, query)),
    checkDmarcRecord: ({ query }) => answer(() => checkDmarcRecord(tools, query)),
    checkIpBlacklist: ({ query }) => answer(() => checkIpBlacklist(tools, query)),
    lookupAsn: ({ query }) => answer(() => lookupAsn(tools, query)),
    checkHttp2Support: ({ query }) => answer(() => checkHttp2Support(tools, query)),
    pingHost: ({ query }) => answer(() => pingHost(tools, query)),
    scanPorts: ({ query }) => answer(() => scanPorts(tools, query)),
    traceRoute: ({ query }) => answer(() => traceRoute(tools, query)),
    getMyIp: ({ req }) => answer(() => myIp(tools, callerOf(req))),
    inspectHttpHeaders: ({ req, query }) => answer(() => inspectHeaders(tools, query, callerOf(req))),
  });
};
