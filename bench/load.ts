/** Load from many concurrent connections (autocannon), counting only the answers with the expected status. */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
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
  const seconds = result.duration;
  return {
    requestsPerSecond: (result.requests.total - unexpected) / seconds,
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
