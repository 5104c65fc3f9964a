import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** How the process ended, once it has. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it printed: up to its start line, or everything with `keepOutput`. */
  output(): string;
  /** Ends the process (SIGTERM: a graceful shutdown; SIGKILL: a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `npm start`'s server (or another script printing "listening on <url>") in its own process, on an
 * ephemeral port, with the given environment: one process (WEB_CONCURRENCY=1) unless `env` says otherwise.
 * `keepOutput` keeps all it prints (for tests reading its logs); otherwise the output after the start line
 * is drained unread. `tsx: false` runs compiled JavaScript (dist/main.js) without tsx's loader.
 */
export async function startServerProcess(
  env: Record<string, string>,
  { script = 'server/main.ts', nodeArgs = [] as string[], keepOutput = false, tsx = true } = {},
): Promise<ServerProcess> {
  // Node itself with tsx's loader (not the tsx CLI, which would run the server in a child of its own that
  // a SIGKILL of the CLI leaves running), so a signal reaches the server process.
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...(tsx ? ['--import', 'tsx'] : []), script], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WEB_CONCURRENCY: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/\S+?:\d+)/.exec(output)?.[1];
      if (listening !== undefined) {
        clearTimeout(timer);
        // From here on the output (a log line per request) is not scanned, and unless kept is drained
        // unread: scanning and keeping it would cost this process time under load, which a benchmark
        // would take for the server's.
        const keep = (more: Buffer) => {
          output += more.toString();
        };
        for (const stream of [child.stdout, child.stderr]) {
          stream?.off('data', onData);
          if (keepOutput) stream?.on('data', keep);
          else stream?.resume();
        }
        resolve(listening.replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    url,
    pid: child.pid as number,
    child,
    exited,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      await exited;
    },
  };
}

/** A loopback port nothing listens on now, for a server whose own URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
