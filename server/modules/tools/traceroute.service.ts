/**
 * The system traceroute program (Linux traceroute, Debian package `traceroute`), run without a shell against
 * the checked IP literal (so it cannot resolve the name to anything else), under a time and an output cap;
 * its output is parsed by a pure function.
 */
import { spawn } from 'node:child_process';
import type { z } from 'zod';
import type { ToolsTraceroute, ToolsTracerouteHop, TraceRouteQuery } from '../../../contract/tools.contract';
import { unavailable } from '../../errors';
import { formatIp, parseIp } from '../../ipam';
import { probeAddress } from './probes.service';
import { checkedTarget, type Tools } from './tools';

type Hop = z.infer<typeof ToolsTracerouteHop>;

export const MAX_HOPS = 20;
/** Seconds traceroute waits for each probe's answer. */
const PROBE_WAIT_S = 1;
/** The whole run is stopped after this long (the hops seen by then are answered). */
export const TRACEROUTE_TIME_CAP_MS = 15_000;
/** Output beyond this is not read (20 hops of 3 probes take about 2 KB). */
export const TRACEROUTE_OUTPUT_CAP = 64 * 1024;

/** The arguments for a trace to `ip`: numeric output, 3 probes per hop, short waits, at most MAX_HOPS hops. */
export function tracerouteArgs(ip: string): string[] {
  const family = parseIp(ip)?.version === 6 ? '-6' : '-4';
  return ['-n', family, '-q', '3', '-w', String(PROBE_WAIT_S), '-m', String(MAX_HOPS), ip];
}

const HOP_LINE = /^\s*(\d+)\s+(.*)$/;

/**
 * The hops of traceroute's output: one per line starting with a hop number, in order, up to MAX_HOPS. On a
 * line, `*` is an unanswered probe, `<n> ms` an answered one, an IP the address answering the probes after
 * it (several when the route balances), `!H`-style flags are ignored. A hop's `ip` is the first address that
 * answered it; its three times are those of its first three probes, whichever address answered. Anything
 * else (the header, warnings, names) is ignored.
 */
export function parseTraceroute(output: string): Hop[] {
  const hops: Hop[] = [];
  for (const line of output.split('\n')) {
    const match = HOP_LINE.exec(line);
    if (!match) continue;
    const [, hopText = '', probes = ''] = match;
    const hop = Number(hopText);
    if (hop < 1 || hop > MAX_HOPS || hops.some((h) => h.hop >= hop)) continue;
    let ip: string | null = null;
    const rtts: (number | null)[] = [];
    const tokens = probes.trim().split(/\s+/);
    for (let token = tokens.shift(); token !== undefined; token = tokens.shift()) {
      if (token === '*') rtts.push(null);
      else if (tokens[0] === 'ms' && /^\d+(?:\.\d+)?$/.test(token)) {
        rtts.push(Number(token));
        tokens.shift();
      } else {
        const address = parseIp(token.replace(/^\((.*)\)$/, '$1'));
        if (address && ip === null) ip = formatIp(address);
      }
    }
    const [rtt1_ms = null, rtt2_ms = null, rtt3_ms = null] = rtts;
    const answered = rtts.some((rtt) => rtt !== null);
    hops.push({ hop, ip: answered ? ip : null, rtt1_ms, rtt2_ms, rtt3_ms });
  }
  return hops;
}

export interface ProgramOutput {
  stdout: string;
  stderr: string;
  /** The exit status; null when the program was stopped (time or output cap) or killed by a signal. */
  exitCode: number | null;
}

/** The program could not be started (not installed, not executable). */
export class ProgramMissing extends Error {}

/**
 * Runs `bin` with `args` (no shell) and collects its output; stops it (SIGKILL) after `timeoutMs` or once
 * `maxBytes` of output arrived, answering what it had written by then.
 */
export function runProgram(
  bin: string,
  args: string[],
  { timeoutMs = TRACEROUTE_TIME_CAP_MS, maxBytes = TRACEROUTE_OUTPUT_CAP } = {},
): Promise<ProgramOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      env: { PATH: process.env.PATH },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).subarray(0, maxBytes).toString('utf8'),
        stderr: Buffer.concat(err).subarray(0, 4096).toString('utf8'),
        exitCode,
      });
    };
    const stop = () => {
      child.kill('SIGKILL');
      // A grandchild could keep the pipes open: stop reading instead of waiting for them to close.
      child.stdout.destroy();
      child.stderr.destroy();
      finish(null);
    };
    const timer = setTimeout(stop, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (settled) return;
      into.push(chunk);
      bytes += chunk.length;
      if (bytes >= maxBytes) stop();
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT' || error.code === 'EACCES'
          ? new ProgramMissing(`${bin} cannot be run (${error.code})`)
          : error,
      );
    });
    child.on('close', (code) => finish(code));
  });
}

/** The first line of the program's complaint, printable characters only, short. */
const complaint = (stderr: string) =>
  (stderr.split('\n').find((line) => line.trim() !== '' && !line.startsWith('traceroute to')) ?? '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, 200);

export async function traceRoute(
  tools: Tools,
  query: z.infer<typeof TraceRouteQuery>,
): Promise<z.infer<typeof ToolsTraceroute>> {
  const ip = probeAddress(await checkedTarget(tools, query.host, 'host'));
  let output: ProgramOutput;
  try {
    output = await runProgram(tools.config.tracerouteBin, tracerouteArgs(ip));
  } catch (error) {
    if (error instanceof ProgramMissing) {
      throw unavailable('traceroute is not available on this server (the traceroute program is not installed)');
    }
    throw error;
  }
  const hops = parseTraceroute(output.stdout);
  if (hops.length === 0 && output.exitCode !== 0) {
    const why = complaint(output.stderr);
    throw unavailable(`traceroute could not run on this server${why ? `: ${why}` : ''}`);
  }
  return { host: query.host, ip, hops };
}
