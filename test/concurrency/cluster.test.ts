/**
 * WEB_CONCURRENCY=2: the compiled server (dist/main.js, as `npm start` runs it; built first when stale) as a
 * cluster of two workers on one loopback port. Which worker answered a connection is read from the OS, not
 * the API: the worker holding the server's end of the TCP connection (/proc/net/tcp and /proc/<pid>/fd).
 * Needs TEST_DATABASE_URL: the embedded database runs one process, so it never makes a cluster.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, startServerProcess } from '../support/process';

const databaseUrl = process.env.TEST_DATABASE_URL;

/** The primary's children: its workers. */
function workersOf(primary: number): number[] {
  try {
    return execFileSync('ps', ['--ppid', String(primary), '-o', 'pid='], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0)
      .sort((a, b) => a - b);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The process among `pids` holding the server's end of the loopback connection from `clientPort`. */
function holderOf(serverPort: number, clientPort: number, pids: number[]): number | undefined {
  const hex = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inode = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find(([, local = '', remote = '']) => local.endsWith(hex(serverPort)) && remote.endsWith(hex(clientPort)))?.[9];
  if (!inode) return undefined;
  return pids.find((pid) =>
    readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    }),
  );
}

/** Sends `GET path` on a new connection and answers its status and the worker that answered it. */
async function ask(port: number, path: string, workers: number[]): Promise<{ status: number; worker?: number }> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
    let text = '';
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk) => {
        text += chunk.toString();
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
        const body = text.indexOf('\r\n\r\n');
        if (body >= 0 && text.length - body - 4 >= length) resolve();
      });
      socket.once('error', reject);
      socket.once('close', () => reject(new Error(`connection closed after: ${text}`)));
    });
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    // The connection is still open: the worker that answered holds its server end.
    return { status, worker: holderOf(port, socket.localPort as number, workers) };
  } finally {
    socket.destroy();
  }
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!databaseUrl)('the compiled server with WEB_CONCURRENCY=2', () => {
  let server: ServerProcess | undefined;
  let port = 0;

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
    port = await freePort();
    server = await startServerProcess(
      { DATABASE_URL: databaseUrl as string, WEB_CONCURRENCY: '2', PORT: String(port), LOG_LEVEL: 'warn' },
      { script: 'dist/main.js', tsx: false, nodeArgs: ['--enable-source-maps'] },
    );
  }, 60_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
  });

  it('answers from two workers, adds up their metrics, serves on when one is killed, stops on SIGTERM', async () => {
    const primary = (server as ServerProcess).pid;
    expect(server?.url).toBe(`http://127.0.0.1:${port}`);
    const workers = workersOf(primary);
    expect(workers).toHaveLength(2);

    // Connections are handed to the workers in turn: both answer.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await ask(port, '/api/v1/folders', workers));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(new Set(answers.map((a) => a.worker))).toEqual(new Set(workers));

    // Whichever worker answers GET /metrics, it counts the requests of both.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('http_requests_total{method="GET",route="/api/v1/folders",status="401"} 4');

    // One worker killed: once the primary has reaped it, the other answers every new connection.
    const [killed = 0, survivor] = workers;
    process.kill(killed, 'SIGKILL');
    await until('the killed worker to be reaped', () => (workersOf(primary).includes(killed) ? undefined : true));
    await sleep(200); // and its IPC channel's end seen, which takes it out of the turn
    const after = await ask(port, '/healthz', workersOf(primary));
    expect(after).toEqual({ status: 200, worker: survivor });

    // The primary starts another worker in its place, and it serves.
    const replaced = await until('a new worker', () => {
      const now = workersOf(primary);
      return now.length === 2 && !now.includes(killed) ? now : undefined;
    });
    const newcomer = replaced.find((pid) => pid !== survivor) as number;
    const seen = new Set<number | undefined>();
    const deadline = Date.now() + 15_000;
    while (!seen.has(newcomer) && Date.now() < deadline) seen.add((await ask(port, '/healthz', replaced)).worker);
    expect(seen.has(newcomer)).toBe(true);

    // SIGTERM to the primary: every worker shuts down gracefully and the primary exits 0.
    server?.child.kill('SIGTERM');
    const { code } = await (server as ServerProcess).exited;
    expect(code).toBe(0);
    expect(replaced.filter(alive)).toEqual([]);
  }, 40_000);
});
