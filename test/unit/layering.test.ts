/**
 * The import rules of docs/architecture.md, read from the source: modules reach each other through
 * services, never through another module's repository; server/ipam is pure arithmetic; the contract
 * imports nothing of the server; there are no import cycles.
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

/** Value imports (type-only imports vanish at run time and cannot form cycles) of a file, resolved. */
function importsOf(file: string): { specifier: string; resolved: string | null; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?'([^']+)'/gms)].map((m) => {
    const specifier = m[2];
    let resolved: string | null = null;
    if (specifier.startsWith('.')) {
      const base = normalize(join(dirname(file), specifier));
      resolved = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => existsSync(c)) ?? null;
    }
    return { specifier, resolved, typeOnly: Boolean(m[1]) };
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

  it('has no import cycles', () => {
    const graph = new Map(
      files.map((file) => [file, importsOf(file).flatMap((i) => (i.resolved && !i.typeOnly ? [i.resolved] : []))]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
