/**
 * Single reads outside transactions (the prepared statements of the hot paths) go over a few connections in
 * pg's pipeline mode instead of the pool: a connection takes the next statement without waiting for the
 * answer to the last, and every statement issued in one turn of the event loop leaves in one write. Under
 * load that is many requests' statements per write and per wake-up of a PostgreSQL backend, where the pool
 * spends a write, a wake-up and a round trip on each (a bare Express endpoint answers about 50 % more
 * requests per second this way). Each statement still has its own Sync: its own implicit transaction, and an
 * error fails it alone. This is pg's own pipeline mode (`pipeline: true`), which writes each statement as it
 * is sent (a system call each): a connection's socket is corked from its first statement of a turn of the
 * event loop to the turn's end (`setImmediate`, after the requests read in the turn have sent theirs).
 *
 * Transactions and writes keep the pool: a transaction needs a connection of its own between statements, and
 * a write waits for its commit to be flushed, which would hold up every statement behind it here (commits
 * share flushes only when many connections commit at once).
 */
import pg from 'pg';

export interface Multiplexer {
  query<Row>(name: string | undefined, text: string, values: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/**
 * `size` pipelined connections to the database, opened when first needed and replaced when lost;
 * `onConnect` prepares each (as the pool's own hook does: it LISTENs for the change feed).
 */
export function multiplexer(
  connectionString: string,
  size: number,
  onConnect: (client: pg.Client) => Promise<void>,
): Multiplexer {
  const slots: (Promise<pg.Client> | null)[] = Array.from({ length: size }, () => null);
  const pending = new Map<Promise<pg.Client>, number>();
  let closed = false;
  const corked = new Set<pg.Client>();
  const uncorkAll = () => {
    for (const client of corked) client.connection.stream.uncork();
    corked.clear();
  };

  /** The statements sent on `client` until the end of this turn of the event loop leave in one write. */
  const gather = (client: pg.Client) => {
    if (corked.has(client)) return;
    if (corked.size === 0) setImmediate(uncorkAll);
    corked.add(client);
    client.connection.stream.cork();
  };

  const open = (slot: number) => {
    const client = new pg.Client({ connectionString, pipeline: true });
    const ready = (async () => {
      await client.connect();
      await onConnect(client);
      return client;
    })();
    const drop = () => {
      if (slots[slot] === ready) slots[slot] = null;
      pending.delete(ready);
    };
    client.on('error', drop);
    client.on('end', drop);
    ready.catch(drop);
    slots[slot] = ready;
    pending.set(ready, 0);
    return ready;
  };

  /** The connection with the fewest statements in flight, opening one where a slot is empty. */
  const pick = () => {
    let best: Promise<pg.Client> | null = null;
    for (let slot = 0; slot < size; slot++) {
      const connection = slots[slot] ?? open(slot);
      if (best === null || (pending.get(connection) ?? 0) < (pending.get(best) ?? 0)) best = connection;
    }
    if (best === null) throw new Error('A multiplexer has at least one connection');
    return best;
  };

  return {
    async query<Row>(name: string | undefined, text: string, values: unknown[]) {
      if (closed) throw new Error('The database is closed');
      const ready = pick();
      pending.set(ready, (pending.get(ready) ?? 0) + 1);
      try {
        const client = await ready;
        gather(client);
        return (await client.query<Row & pg.QueryResultRow>({ name, text, values })).rows;
      } finally {
        if (pending.has(ready)) pending.set(ready, (pending.get(ready) ?? 1) - 1);
      }
    },
    async close() {
      closed = true;
      const open = slots.filter((slot): slot is Promise<pg.Client> => slot !== null);
      await Promise.all(open.map(async (ready) => (await ready.catch(() => null))?.end().catch(() => {})));
    },
  };
}
