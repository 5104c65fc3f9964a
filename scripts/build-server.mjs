/**
 * Compiles the server's entry points (server/main.ts, worker.ts, admin.ts) ahead of time with esbuild into
 * dist/ (git-ignored): one ESM file each for Node 20 with its source map, shared code in chunks, every
 * package of node_modules left external (imported from node_modules at run time, as under tsx).
 *
 *   node scripts/build-server.mjs             builds (`npm run build`; `npm ci` runs it through `prepare`)
 *   node scripts/build-server.mjs --if-stale  builds only when a source file changed since the last build
 *                                             (`npm start`, `npm run admin`, `npm run worker` run this first)
 *
 * Staleness: the last build wrote every input it read into dist/build-meta.json with the time it started;
 * the build is stale when one of them is gone or modified since, or when this script or package.json is.
 * That check stats ~180 files (7 ms here), against 0.2–0.6 s for a build on a 2-core machine, so a changed
 * source is never run stale and an unchanged one starts at once (docs/performance.md, "Production runtime").
 * A build is written to a directory of its own and then put in dist/'s place, so a process starting meanwhile
 * (a cluster replacing a worker, a second `npm start`) finds the old build or the new one, never half of one.
 * Files the server reads at run time are found from the project's root (server/paths.ts), not from dist/.
 * Messages go to standard error only: `npm run admin` prints its answer as the last line of standard output.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist');
const metaFile = join(outdir, 'build-meta.json');
const entryPoints = ['server/main.ts', 'server/worker.ts', 'server/admin.ts'];
/** Files that change the build's output without being its inputs. */
const buildFiles = ['scripts/build-server.mjs', 'package.json'];

/** Why dist/ must be built again: missing, or older than one of the files its last build read; null when fresh. */
function stale() {
  let meta;
  try {
    meta = JSON.parse(readFileSync(metaFile, 'utf8'));
  } catch {
    return 'no previous build';
  }
  for (const file of meta.outputs) {
    try {
      statSync(join(root, file));
    } catch {
      return `${file} is gone`;
    }
  }
  for (const file of [...meta.inputs, ...buildFiles]) {
    let mtime;
    try {
      mtime = statSync(join(root, file)).mtimeMs;
    } catch {
      return `${file} is gone`;
    }
    if (mtime > meta.startedAt) return `${file} changed`;
  }
  return null;
}

async function build() {
  const startedAt = Date.now();
  const { build: esbuild } = await import('esbuild');
  // Beside dist/, at the same depth, so the source maps' relative paths to server/ hold once it is renamed.
  const building = join(root, `dist.building-${process.pid}`);
  const replaced = join(root, `dist.replaced-${process.pid}`);
  try {
    const result = await esbuild({
      absWorkingDir: root,
      entryPoints,
      outdir: building,
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      sourcemap: true,
      // Source maps point at the files in server/ … relative to dist/, so stack traces name them.
      sourcesContent: false,
      metafile: true,
      logLevel: 'warning',
    });
    const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/'));
    const outputs = Object.keys(result.metafile.outputs).map((file) => file.replace(/^dist\.building-\d+\//, 'dist/'));
    writeFileSync(join(building, 'build-meta.json'), `${JSON.stringify({ startedAt, inputs, outputs }, null, 1)}\n`);
    // Another build may be swapping its own in at the same time: the last one to rename stays.
    for (let attempt = 0; ; attempt++) {
      try {
        renameSync(outdir, `${replaced}-${attempt}`);
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
      try {
        renameSync(building, outdir);
        break;
      } catch (error) {
        if ((error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') || attempt >= 5) throw error;
      }
    }
    return { ms: Date.now() - startedAt, inputs: inputs.length };
  } finally {
    rmSync(building, { recursive: true, force: true });
    for (let attempt = 0; attempt <= 5; attempt++) rmSync(`${replaced}-${attempt}`, { recursive: true, force: true });
  }
}

const ifStale = process.argv.includes('--if-stale');
const checkStarted = performance.now();
const reason = ifStale ? stale() : 'asked';
if (reason === null) {
  if (process.env.BUILD_VERBOSE)
    console.error(`server build up to date (checked in ${(performance.now() - checkStarted).toFixed(1)} ms)`);
} else {
  const { ms, inputs } = await build();
  console.error(
    `server compiled to ${relative(process.cwd(), outdir) || '.'}/ in ${ms} ms (${inputs} files; ${reason})`,
  );
}
