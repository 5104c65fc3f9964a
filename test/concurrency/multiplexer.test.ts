/**
 * The pipelined connections beside the pool (server/db/multiplexer.ts): the statements of one turn of the
 * event loop leave in one write, each answers its own rows or its own error, and a lost connection is
 * replaced. PostgreSQL server only (PGlite has no connections).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiplexer } from '../../server/db/multiplexer';
import { defined } from '../support/defined';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('multiplexer', () => {
  let listened = 0;
  const statements = multiplexer(url ?? '', 2, async () => {
    listened++;
  });
  const echo = (value: number) => statements.query<{ n: number }>('mux_echo', 'SELECT $1::int AS n', [value]);
  const backend = () => statements.query<{ pid: number }>('mux_pid', 'SELECT pg_backend_pid() AS pid', []);

  beforeAll(() => echo(0));
  afterAll(() => statements.close());

  it('answers every statement of a burst with its own rows, over its connections, each prepared once', async () => {
    const values = Array.from({ length: 200 }, (_, i) => i);
    expect((await Promise.all(values.map(echo))).map(([row]) => row?.n)).toEqual(values);
    const pids = new Set((await Promise.all(Array.from({ length: 20 }, backend))).map(([row]) => row?.pid));
    expect(pids.size).toBe(2);
    expect(listened).toBe(2);
  });

  it('fails a statement alone: the others sent with it still answer', async () => {
    const results = await Promise.allSettled([
      echo(1),
      statements.query('mux_fail', 'SELECT 1 / $1::int AS n', [0]),
      echo(2),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    expect((await echo(3))[0]?.n).toBe(3);
  });

  it('replaces a connection the server ended, and goes on answering', async () => {
    const before = new Set((await Promise.all(Array.from({ length: 20 }, backend))).map(([row]) => row?.pid));
    const victim = defined([...before][0], 'a backend');
    const kill = statements.query('mux_kill', 'SELECT pg_terminate_backend($1::int)', [victim]);
    await kill.catch(() => {});
    // Statements sent on the dying connection may fail; later ones go to a new one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = new Set<number>();
    for (let attempt = 0; attempt < 50 && after.size < 2; attempt++) {
      const rows = await Promise.allSettled(Array.from({ length: 10 }, backend));
      for (const r of rows) if (r.status === 'fulfilled') after.add(defined(r.value[0], 'the backend').pid);
    }
    expect(after.has(victim)).toBe(false);
    expect(after.size).toBe(2);
    expect((await echo(4))[0]?.n).toBe(4);
  });

  it('refuses statements once closed', async () => {
    const closing = multiplexer(url ?? '', 1, async () => {});
    await closing.query('mux_echo', 'SELECT $1::int AS n', [randomUUID().length]);
    await closing.close();
    await expect(closing.query('mux_echo', 'SELECT 1', [])).rejects.toThrow(/closed/);
  });
});
