/**
 * /tools/traceroute with the system traceroute program against 127.0.0.1 (the only address allowed), a 503
 * when the program is missing, and the process runner's caps with small stand-in programs (shell scripts in a
 * temporary directory) that print, stall or flood. The two traces skip, saying so, where traceroute is not
 * installed (not under CI, which installs it).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgramMissing, runProgram } from '../../server/modules/tools/traceroute.service';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { excuseStatuses, expectStatus } from '../support/observed';
import { missingProgram, skippedBecause } from '../support/programs';
import { testConfig } from '../support/server';

const names = new Map<string, string[]>([['loop.test', ['127.0.0.1']]]);
const noTraceroute = missingProgram('traceroute');
excuseStatuses(noTraceroute, { traceRoute: [200] });

describe('with the traceroute program', () => {
  const t = useTestServer(
    { config: { outboundAllowCidrs: ['127.0.0.1/32'] }, resolveHost: async (host) => names.get(host) ?? [] },
    false,
  );
  const trace = (host: string, headers = { 'x-forwarded-for': clientIp() }) =>
    t.server.anonymous.call('traceRoute', { query: { host }, headers });

  it.skipIf(noTraceroute)(
    `traces 127.0.0.1 in one hop answered three times${skippedBecause(noTraceroute)}`,
    async () => {
      const body = expectStatus(await trace('127.0.0.1'), 200);
      expect(body).toMatchObject({ host: '127.0.0.1', ip: '127.0.0.1' });
      expect(body.hops).toHaveLength(1);
      const hop = defined(body.hops[0], 'the hop');
      expect(hop).toMatchObject({ hop: 1, ip: '127.0.0.1' });
      for (const rtt of [hop.rtt1_ms, hop.rtt2_ms, hop.rtt3_ms]) expect(rtt).toBeGreaterThanOrEqual(0);
    },
  );

  it.skipIf(noTraceroute)(`traces the checked address of a name${skippedBecause(noTraceroute)}`, async () => {
    const body = expectStatus(await trace('loop.test'), 200);
    expect(body).toMatchObject({ host: 'loop.test', ip: '127.0.0.1', hops: [{ hop: 1, ip: '127.0.0.1' }] });
  });

  it('refuses a loopback address outside the allow list with 400 naming `host`', async () => {
    expect(expectStatus(await trace('127.0.0.2'), 400).error).toMatch(/^host: 127\.0\.0\.2 .*loopback/);
  });

  it('refuses a malformed host with 400 naming `host`', async () => {
    expect(expectStatus(await trace('-n 127.0.0.1'), 400).error).toMatch(/host/);
  });

  it('answers 429 with Retry-After on the 4th probe from one address in a minute', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 3; i++) expectStatus(await trace('', headers), 400);
    const limited = await trace('127.0.0.1', headers);
    expectStatus(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('without the traceroute program', () => {
  const t = useTestServer(
    {
      config: {
        outboundAllowCidrs: ['127.0.0.1/32'],
        tools: { ...testConfig().tools, tracerouteBin: '/nonexistent/traceroute' },
      },
    },
    false,
  );

  it('answers 503 saying the program is not installed', async () => {
    const response = await t.server.anonymous.call('traceRoute', {
      query: { host: '127.0.0.1' },
      headers: { 'x-forwarded-for': clientIp() },
    });
    const body = expectStatus(response, 503);
    expect(body.error).toMatch(/traceroute .*not installed/);
    expect(response.headers.get('retry-after')).not.toBeNull();
  });

  it('still refuses a refused target with 400 first', async () => {
    const response = await t.server.anonymous.call('traceRoute', {
      query: { host: '10.0.0.1' },
      headers: { 'x-forwarded-for': clientIp() },
    });
    expect(expectStatus(response, 400).error).toMatch(/private/);
  });
});

describe('runProgram', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'traceroute-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const program = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('passes the arguments as they are, without a shell', async () => {
    const echo = program('echo-args', 'for a in "$@"; do echo "[$a]"; done');
    const output = await runProgram(echo, ['-n', '$(id)', 'a b;c']);
    expect(output).toEqual({ stdout: '[-n]\n[$(id)]\n[a b;c]\n', stderr: '', exitCode: 0 });
  });

  it('stops a program that runs past the time cap and answers what it printed', async () => {
    const slow = program('slow', "echo ' 1  127.0.0.1  0.1 ms'\nexec sleep 30");
    const started = Date.now();
    const output = await runProgram(slow, [], { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(output).toMatchObject({ stdout: ' 1  127.0.0.1  0.1 ms\n', exitCode: null });
  });

  it('stops reading at the output cap', async () => {
    const flood = program('flood', 'exec yes " 1  127.0.0.1  0.1 ms"');
    const output = await runProgram(flood, [], { maxBytes: 1000 });
    expect(output.stdout.length).toBeLessThanOrEqual(1000);
    expect(output.exitCode).toBeNull();
  });

  it('reports the exit status and the complaint of a failing program', async () => {
    const failing = program('failing', 'echo "connect: Network is unreachable" >&2\nexit 1');
    expect(await runProgram(failing, [])).toEqual({
      stdout: '',
      stderr: 'connect: Network is unreachable\n',
      exitCode: 1,
    });
  });

  it('rejects with ProgramMissing when the program does not exist or cannot be run', async () => {
    await expect(runProgram(join(dir, 'absent'), [])).rejects.toBeInstanceOf(ProgramMissing);
    const notExecutable = join(dir, 'not-executable');
    writeFileSync(notExecutable, 'echo hi\n');
    await expect(runProgram(notExecutable, [])).rejects.toBeInstanceOf(ProgramMissing);
  });
});
