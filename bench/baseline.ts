/**
 * The ceilings the targets are ratios of, on the same PostgreSQL database with the same pool size as the
 * server: bare Express and one prepared primary-key SELECT (the throughput targets), and bare Express and
 * one prepared durable INSERT into the bench's scratch table, its own commit (the writes of
 * bench/ceilings.ts). Run as its own process by bench/run.ts; prints "listening on <url>" like the server.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const app = express();
app.disable('x-powered-by');
app.get('/subnets/:id', async (req, res) => {
  const { rows } = await pool.query({
    name: 'subnet_by_id',
    text: 'SELECT id, network::text AS network, name, created_at FROM subnets WHERE id = $1',
    values: [req.params.id],
  });
  if (rows.length === 0) res.status(404).json({ error: 'not found' });
  else res.json(rows[0]);
});
/** The scratch table bench/ceilings.ts creates: a row of a key, a text and a timestamp, like a small record. */
app.post('/write', express.json(), async (req, res) => {
  const { rows } = await pool.query({
    name: 'scratch_insert',
    text: 'INSERT INTO bench_scratch (payload) VALUES ($1) RETURNING id, payload, created_at',
    values: [String(req.body?.payload ?? '')],
  });
  res.status(201).json(rows[0]);
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
