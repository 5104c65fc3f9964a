/**
 * The embedded database's ceiling: bare Express and one parameterised primary-key SELECT on PGlite, in a
 * process of its own like the embedded server, on a copy of a data directory seeded like the server's (run
 * by bench/ceilings.ts with DATA_DIR). The statement goes to PGlite as the server's prepared statements do (a
 * named statement, server/db/pglite-statements.ts). Prints "listening on <url>" like the server.
 */

import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import express from 'express';
import { runNamedOnPglite } from '../server/db/pglite-statements';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
// The same extensions as the server loads (connection.ts): the data directory's schema uses them.
const pglite = await PGlite.create({ dataDir: resolve(dataDir), extensions: { btree_gist, pg_trgm } });
const primaryKeyRead = {
  name: 'ceiling_read',
  text: 'SELECT id, network::text AS network, name, created_at FROM subnets WHERE id = $1',
};
const app = express();
app.disable('x-powered-by');
app.get('/subnets/:id', async (req, res) => {
  const rows = await runNamedOnPglite(pglite, primaryKeyRead, [req.params.id], false);
  if (rows.length === 0) res.status(404).json({ error: 'not found' });
  else res.json(rows[0]);
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => pglite.close().then(() => process.exit(0))));
