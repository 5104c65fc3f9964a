/**
 * The import rules of docs/architecture.md, read from the source: modules reach each other through
 * services, never through another module's repository; server/ipam is pure arithmetic; the contract
 * imports nothing of the server; there are no import cycles, between files or between modules; SQL is
 * written in repositories and server/db/ only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** The imports and re-exports of a file, resolved when relative; `typeOnly` for `import type` / `export type`. */
function importsOf(file: string): { specifier: string; resolved: string | null; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?'([^']+)'/gms)].map((m) => {
    const [, typeKeyword, specifier = ''] = m;
    let resolved: string | null = null;
    if (specifier.startsWith('.')) {
      const base = normalize(join(dirname(file), specifier));
      resolved = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => existsSync(c)) ?? null;
    }
    return { specifier, resolved, typeOnly: Boolean(typeKeyword) };
  });
}

const files = [...sources('server'), ...sources('contract')];
const moduleOf = (path: string) => /^server\/modules\/([^/]+)\//.exec(path)?.[1];

type Import = ReturnType<typeof importsOf>[number];

/** The imports of the files under `dirs` that break a rule, as "file → import". */
const breaking = (dirs: string[], breaks: (i: Import, file: string) => boolean) =>
  dirs
    .flatMap(sources)
    .flatMap((file) =>
      importsOf(file).flatMap((i) => (breaks(i, file) ? [`${file} → ${i.resolved ?? i.specifier}`] : [])),
    );

/** One cycle (as "a → b → a") per edge closing one, by depth-first search; none when the graph has no cycle. */
function cyclesOf(graph: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** Where SQL may be written: the repositories of the modules, and the database layer. */
const mayHoldSql = (file: string) => file.startsWith('server/db/') || /^server\/modules\/.+\.repo\.ts$/.test(file);

/** The drizzle tables of server/db/schema.ts, by their exported names. */
const TABLES = [...readFileSync('server/db/schema.ts', 'utf8').matchAll(/^export const (\w+) = pgTable\(/gm)].map(
  (m) => m[1],
);

/** A file's code without its comments (`//` ones, and `/* … *\/` blocks that begin a line), which may name SQL freely. */
const codeOf = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1');

/**
 * What writes SQL, read from a file: a value import of drizzle (its `sql` tag, operators and builders), of
 * the schema's tables, of `prepared` or of a database driver (type imports build no query); and, for a
 * database handed in from elsewhere, a `sql` template, a `prepared(…)` statement, `.execute(…)`, drizzle's
 * `.select…(` builders, `.insert(`, `.update(` or `.delete(` of a schema table, or a relational `.query.<table>.`.
 */
function sqlIn(file: string): string[] {
  const found = importsOf(file).flatMap((i) =>
    !i.typeOnly &&
    (/^(drizzle-orm|pg|@electric-sql\/pglite)(\/|$)/.test(i.specifier) ||
      i.resolved === 'server/db/schema.ts' ||
      i.resolved === 'server/db/prepared.ts')
      ? [`imports ${i.specifier}`]
      : [],
  );
  const table = `(?:schema\\.)?(?:${TABLES.join('|')})\\b`;
  const writes: [string, RegExp][] = [
    ['a sql`…` template', /\bsql\s*`/],
    ['a prepared() statement', /\bprepared\s*[<(]/],
    ['.execute()', /\.execute\s*\(/],
    ["drizzle's .select()", /\.(?:select|selectDistinct|selectDistinctOn)\s*\(/],
    ['.insert(), .update() or .delete() of a table', new RegExp(`\\.(?:insert|update|delete)\\s*\\(\\s*${table}`)],
    ['a relational .query.<table>', new RegExp(`\\.query\\.${table}`)],
  ];
  const code = codeOf(file);
  return [...found, ...writes.flatMap(([what, pattern]) => (pattern.test(code) ? [`writes ${what}`] : []))];
}

describe('layering', () => {
  it("no module imports another module's repository", () => {
    const otherRepo = (i: Import, file: string) =>
      Boolean(i.resolved?.endsWith('.repo.ts')) && moduleOf(i.resolved as string) !== moduleOf(file);
    expect(breaking(['server', 'contract'], otherRepo)).toEqual([]);
  });

  it('nothing under server/ipam imports I/O, HTTP, the database or other server code', () => {
    expect(breaking(['server/ipam'], (i) => !i.resolved?.startsWith('server/ipam/'))).toEqual([]);
  });

  it('the contract imports nothing of the server', () => {
    expect(breaking(['contract'], (i) => Boolean(i.resolved?.startsWith('server/')))).toEqual([]);
  });

  it('modules import no HTTP code (errors live in server/errors.ts)', () => {
    const http = (i: Import) =>
      !i.typeOnly && (Boolean(i.resolved?.startsWith('server/http/errors')) || i.specifier === 'express');
    expect(breaking(['server/modules'], http)).toEqual([]);
  });

  it('server/http imports no module (app.ts passes in what the middleware needs)', () => {
    expect(breaking(['server/http'], (i) => Boolean(i.resolved?.startsWith('server/modules/')))).toEqual([]);
  });

  it('the console reaches the API through the SDK only: nothing of the server, no values of the contract', () => {
    const outside = (i: Import) =>
      Boolean(i.resolved?.startsWith('server/')) || (!i.typeOnly && Boolean(i.resolved?.startsWith('contract/')));
    expect(breaking(['clients/web/src'], outside)).toEqual([]);
  });

  // Type imports count: they vanish at run time, but a cycle through one is still two files that each
  // need the other to be understood.
  it('has no import cycles between files, type imports included', () => {
    const graph = new Map(
      files.map((file) => [file, importsOf(file).flatMap((i) => (i.resolved ? [i.resolved] : []))]),
    );
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('has no cycles between modules (server/modules/<module>/, type imports included): they form layers', () => {
    const graph = new Map<string, string[]>();
    const via = new Map<string, string>();
    for (const file of files) {
      const from = moduleOf(file);
      if (!from) continue;
      for (const i of importsOf(file)) {
        const to = i.resolved && moduleOf(i.resolved);
        if (!to || to === from) continue;
        const targets = graph.get(from) ?? [];
        if (!targets.includes(to)) graph.set(from, [...targets, to]);
        if (!via.has(`${from} → ${to}`)) via.set(`${from} → ${to}`, `${file} → ${i.resolved}`);
      }
    }
    const explained = cyclesOf(graph).map((cycle) => {
      const steps = cycle.split(' → ');
      return [cycle, ...steps.slice(1).map((to, n) => `  ${via.get(`${steps[n]} → ${to}`)}`)].join('\n');
    });
    expect(explained).toEqual([]);
  });

  it('SQL is written only in repositories (server/modules/**/*.repo.ts) and server/db/', () => {
    const outside = sources('server')
      .filter((file) => !mayHoldSql(file))
      .flatMap((file) => sqlIn(file).map((what) => `${file}: ${what}`));
    expect(outside).toEqual([]);
  });

  // One way to write a statement: drizzle's builder for a table's plain reads and writes, or SQL text with
  // named parameters in prepared(); a `sql` template only as an expression inside a builder call.
  it('repositories run no SQL text except through prepared() (no .execute of a sql template)', () => {
    const executing = sources('server/modules')
      .filter((file) => file.endsWith('.repo.ts') && /\.execute\s*[<(]/.test(codeOf(file)))
      .map((file) => `${file}: .execute()`);
    expect(executing).toEqual([]);
  });

  it('the SQL check sees SQL (it would pass on nothing otherwise)', () => {
    expect(TABLES).toContain('subnets');
    const repos = sources('server/modules').filter(mayHoldSql);
    expect(repos.filter((file) => sqlIn(file).length === 0)).toEqual([]);
  });
});
