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
  return s.router(contract.tools, {
    lookupDns: async ({ query }) => ({ status: 200, body: await lookupDns(tools, query) }),
    checkDnsPropagation: async ({ query }) => ({ status: 200, body: await checkDnsPropagation(tools, query) }),
    lookupReverseDns: async ({ query }) => ({ status: 200, body: await lookupReverseDns(tools, query) }),
    lookupWhois: async ({ query }) => ({ status: 200, body: await lookupWhois(tools, query) }),
    checkSslCertificate: async ({ query }) => ({ status: 200, body: await checkSslCertificate(tools, query) }),
    checkSpfRecord: async ({ query }) => ({ status: 200, body: await checkSpfRecord(tools, query) }),
    checkDmarcRecord: async ({ query }) => ({ status: 200, body: await checkDmarcRecord(tools, query) }),
    checkIpBlacklist: async ({ query }) => ({ status: 200, body: await checkIpBlacklist(tools, query) }),
    lookupAsn: async ({ query }) => ({ status: 200, body: await lookupAsn(tools, query) }),
    checkHttp2Support: async ({ query }) => ({ status: 200, body: await checkHttp2Support(tools, query) }),
    pingHost: async ({ query }) => ({ status: 200, body: await pingHost(tools, query) }),
    scanPorts: async ({ query }) => ({ status: 200, body: await scanPorts(tools, query) }),
    traceRoute: async ({ query }) => ({ status: 200, body: await traceRoute(tools, query) }),
    getMyIp: async ({ req }) => ({ status: 200, body: await myIp(tools, callerOf(req)) }),
    inspectHttpHeaders: async ({ req, query }) => ({
      status: 200,
      body: await inspectHeaders(tools, query, callerOf(req)),
    }),
  });
};
