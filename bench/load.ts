/** Load from many concurrent connections (autocannon), counting only the answers with the expected status. */
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  /** Answers with the expected status. */
  requests: number;
  p50: number;
  p99: number;
  /** Answers with another status than expected, or errors and timeouts: a run with any is refused. */
  unexpected: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A body per request (e.g. a fresh IP each time); without it, no body. */
  body?: () => string;
  expect: number;
  connections?: number;
  seconds?: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  let unexpected = 0;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 5,
    requests: options.body ? [{ setupRequest: (request) => ({ ...request, body: options.body?.() }) }] : undefined,
    setupClient: (client) => {
      client.on('response', (statusCode: number) => {
        if (statusCode !== options.expect) unexpected++;
      });
    },
  });
  const requests = result.requests.total - unexpected;
  return {
    requestsPerSecond: requests / result.duration,
    requests,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: unexpected + result.errors + result.timeouts,
  };
}

/** A process's resident set in MB (Linux). */
export function residentMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 once it is gone. */
function cpuSeconds(pid: number | string): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const [, afterName] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
    if (afterName === undefined) return 0;
    const fields = afterName.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by each `postgres` process of this machine (the bench's own cluster). */
function postgresCpuSeconds(): Map<string, number> {
  const used = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') used.set(pid, cpuSeconds(pid));
    } catch {
      // The process ended while being read.
    }
  }
  return used;
}

/**
 * CPU used by the serving process and by PostgreSQL between a mark and `perRequest(n)`, in ms per request:
 * what a request costs, which unlike requests per second hardly depends on what else the machine runs.
 * A PostgreSQL process that ended in between is left out (its time is gone with it).
 */
export function cpuMeter(pid: number) {
  const start = { server: cpuSeconds(pid), postgres: postgresCpuSeconds() };
  return (requests: number) => {
    let postgres = 0;
    for (const [p, seconds] of postgresCpuSeconds()) postgres += seconds - (start.postgres.get(p) ?? 0);
    return {
      server: ((cpuSeconds(pid) - start.server) * 1000) / requests,
      postgres: (postgres * 1000) / requests,
    };
  };
}
