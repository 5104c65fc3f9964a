/**
 * Named prepared statements on PGlite. Its `query(text, values)` sends the statement unnamed, so PostgreSQL
 * parses and plans it again on every call, in five calls into PGlite's WebAssembly. Here a statement is parsed
 * once under its name (like on a PostgreSQL server: a generic plan from its sixth run), then each call is one
 * Bind, Describe and Execute in one message: the hot subnet read went from 4–5 ms to about 1.3 ms.
 */

import type { PGlite } from '@electric-sql/pglite';

type Library = typeof import('@electric-sql/pglite');
// Loaded on first use: a process on a PostgreSQL server never loads PGlite.
let library: Promise<Library> | undefined;

/** The parameter types of the statements parsed on each PGlite instance, by name. */
const parsedOn = new WeakMap<PGlite, Map<string, number[]>>();

function joined(parts: Uint8Array[]) {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/**
 * Runs a named statement on PGlite and answers its rows, parsed as `query()` parses them. `inTransaction`: the
 * caller holds PGlite's transaction (its mutex is taken), so only the per-message mutex is waited for.
 */
export async function runNamedOnPglite<Row>(
  pglite: PGlite,
  statement: { name: string; text: string },
  values: unknown[],
  inTransaction: boolean,
): Promise<Row[]> {
  library ??= import('@electric-sql/pglite');
  const { parse, protocol } = await library;
  const { serialize } = protocol;
  const run = async () => {
    const parsed = parsedOn.get(pglite) ?? new Map<string, number[]>();
    parsedOn.set(pglite, parsed);
    let types = parsed.get(statement.name);
    if (!types) {
      const { messages } = await pglite.execProtocol(
        joined([serialize.parse(statement), serialize.describe({ type: 'S', name: statement.name }), serialize.sync()]),
        { syncToFs: false },
      );
      types = parse.parseDescribeStatementResults(messages);
      parsed.set(statement.name, types);
    }
    const serialized = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pglite.serializers[types[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await pglite.execProtocol(
      joined([
        serialize.bind({ statement: statement.name, values: serialized }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      // A transaction's writes reach the files at its commit, as with query() in one.
      { syncToFs: !inTransaction },
    );
    return (parse.parseResults(messages, pglite.parsers)[0]?.rows ?? []) as Row[];
  };
  return inTransaction ? pglite.runExclusive(run) : pglite._runExclusiveTransaction(() => pglite.runExclusive(run));
}
