/**
 * Notifications of committed changes, through PostgreSQL's LISTEN/NOTIFY: triggers NOTIFY a channel
 * when rows that in-memory caches depend on change (migrations/0009, 0010), and every process hears it.
 *
 * On a PostgreSQL server every pooled connection LISTENs, so the notification of a change made through
 * this process arrives with its COMMIT, before the change's request answers; a dedicated connection
 * hears other processes' changes as soon as the server sends them. While that connection is down the
 * feed is not `reliable` and subscribers are told to forget everything (on loss and on reconnection).
 * PGlite delivers its own notifications with the COMMIT, and only one process can open it.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** The channels the triggers notify. */
export const CHANGE_CHANNELS = ['principals_changed', 'webhooks_changed'] as const;
export type ChangeChannel = (typeof CHANGE_CHANNELS)[number];

export interface ChangeFeed {
  /** `onChange` runs after each committed change on the channel, and whenever one may have been missed. */
  subscribe(channel: ChangeChannel, onChange: () => void): void;
  /** False while changes of other processes could go unheard (caches must then not be trusted). */
  reliable(): boolean;
  close(): Promise<void>;
}

function subscribers() {
  const byChannel = new Map<string, Set<() => void>>();
  return {
    add(channel: string, onChange: () => void) {
      const set = byChannel.get(channel) ?? new Set();
      set.add(onChange);
      byChannel.set(channel, set);
    },
    notify(channel: string) {
      for (const onChange of byChannel.get(channel) ?? []) onChange();
    },
    notifyAll() {
      for (const set of byChannel.values()) for (const onChange of set) onChange();
    },
  };
}

/** One round trip (a client runs one query at a time: pg deprecates queueing them in parallel). */
const listenAll = (client: pg.ClientBase) =>
  client.query(CHANGE_CHANNELS.map((channel) => `LISTEN ${channel}`).join('; '));

/**
 * The feed of a PostgreSQL server; pass `onPoolConnect` as the pool's `onConnect`, so every pooled
 * connection LISTENs before it is first handed out.
 */
export function postgresChangeFeed(connectionString: string): ChangeFeed & {
  onPoolConnect: (client: pg.ClientBase) => Promise<void>;
} {
  const subs = subscribers();
  let listener: pg.Client | null = null;
  let ready = false;
  let closed = false;
  const onPoolConnect = async (client: pg.ClientBase) => {
    client.on('notification', (message) => subs.notify(message.channel));
    await listenAll(client);
  };

  const lost = () => {
    ready = false;
    subs.notifyAll();
  };
  let retry: NodeJS.Timeout | null = null;
  const reconnectSoon = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, 1000);
    retry.unref();
  };
  async function connect() {
    if (closed) return;
    const client = new pg.Client({ connectionString });
    listener = client;
    client.on('notification', (message) => subs.notify(message.channel));
    client.on('error', () => {});
    client.on('end', () => {
      lost();
      reconnectSoon();
    });
    try {
      await client.connect();
      await listenAll(client);
      ready = true;
      subs.notifyAll(); // whatever changed while nobody listened
    } catch {
      lost();
      client.end().catch(() => {});
      reconnectSoon();
    }
  }
  void connect();

  return {
    onPoolConnect,
    subscribe: subs.add,
    reliable: () => ready && !closed,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      lost();
      await listener?.end().catch(() => {});
    },
  };
}

export async function pgliteChangeFeed(client: PGlite): Promise<ChangeFeed> {
  const subs = subscribers();
  for (const channel of CHANGE_CHANNELS) await client.listen(channel, () => subs.notify(channel));
  return { subscribe: subs.add, reliable: () => true, close: async () => {} };
}
