/**
 * The running server and the OpenAPI document cannot drift: a tour of the operations through
 * the SDK — successes and error statuses — passes through Prism's validation proxy (`prism proxy --errors`),
 * which checks every request and response against openapi/openapi.json. With `--errors` Prism answers a
 * violation itself, with an `application/problem+json` body of type `https://stoplight.io/prism/errors#…`
 * listing the violations; the test fails on such an answer, or on a violation or error in Prism's log. A canary (a response made wrong on purpose by the forwarding hop
 * in front of the server) proves that a violation is caught.
 *
 * Prism answers a 501 of the upstream with a mock ("Remocking the call"): the test fails if it ever remocked.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError, createClient, type IpamClient } from '../../clients/typescript/src/index';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { useTestServer } from '../support/factories';
import { runTour } from './prism-tour';

const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, false);
let receiver: Receiver;
let hop: Server;
let prism: ChildProcess;
let prismUrl: string;
let log = '';
const answers: { request: string; status: number; body: string }[] = [];

/** A forwarding hop between Prism and the server; `x-canary: violate` makes it return a wrong body. */
async function startHop(upstream: string): Promise<Server> {
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.headers['x-canary'] === 'violate') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": 42}]');
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
      redirect: 'manual',
    });
    const out = Object.fromEntries(
      [...answer.headers].filter(([name]) => !/^(content-encoding|transfer-encoding|connection)$/.test(name)),
    );
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  receiver = await startReceiver();
  hop = await startHop(t.server.url);
  const port = await freePort();
  const hopUrl = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;
  const args = ['proxy', 'openapi/openapi.json', hopUrl, '--errors', '--port', String(port), '--host', '127.0.0.1'];
  prism = spawn('node_modules/.bin/prism', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  prism.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  prism.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  for (let i = 0; i < 300 && !/Prism is listening/.test(log); i++) {
    if (prism.exitCode !== null) throw new Error(`prism exited:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!/Prism is listening/.test(log)) throw new Error(`prism did not start:\n${log}`);
  log = '';
  prismUrl = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  prism?.kill();
  await new Promise((resolve) => hop?.close(resolve));
  await receiver?.close();
});

/** An SDK client through Prism that records every answer and never retries (each answer is one exchange). */
function throughPrism(apiKey: string): IpamClient {
  return createClient({
    baseUrl: prismUrl,
    apiKey,
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const body = await response.clone().text();
      answers.push({
        request: `${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`,
        status: response.status,
        body,
      });
      return response;
    },
  });
}

/** Answers Prism made itself: request or response violations (problem+json of type prism/errors#…). */
const prismErrors = () => answers.filter((a) => a.body.includes('https://stoplight.io/prism/errors#'));

it('catches a response that violates the document (canary)', async () => {
  const org = await t.server.newOrg();
  const client = throughPrism(org.key);
  const error = await client.folders.list(undefined, { headers: { 'x-canary': 'violate' } }).catch((e) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect(error.status).toBe(500);
  expect(JSON.stringify(error.body)).toMatch(/prism\/errors#VIOLATIONS/);
  // Prism logs the violation a moment after answering.
  for (let i = 0; i < 50 && !/errors#VIOLATIONS/.test(log); i++) await new Promise((r) => setTimeout(r, 50));
  expect(log).toMatch(/✖ +error .*errors#VIOLATIONS/);
  answers.length = 0;
  log = '';
});

it('passes a tour of the implemented operations, successes and errors, with no violation', async () => {
  await runTour({
    server: t.server,
    client: throughPrism,
    hookUrl: receiver.url(`/hook-${randomUUID()}`),
  });
  expect(prismErrors(), JSON.stringify(prismErrors(), null, 1)).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 500)); // Prism's log trails its answers
  const flagged = log.split('\n').filter((line) => /violation|remocking|✖/i.test(line));
  expect(flagged).toEqual([]);
  expect(answers.length).toBeGreaterThan(60);
  const statuses = [...new Set(answers.map((a) => a.status))].sort();
  expect(statuses).toEqual([200, 201, 204, 400, 401, 402, 403, 404, 429, 502]);
}, 60_000);
