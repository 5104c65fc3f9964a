import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const committed = join(root, 'clients/typescript/src/generated');
/** orval is installed apart (`npm run sdk:install`); without it the check skips, saying so, except under CI. */
const noGenerator =
  process.env.CI || existsSync(join(root, 'clients/typescript/generator/node_modules/orval/package.json'))
    ? ''
    : ' (skipped: the SDK generator is not installed: npm run sdk:install)';
if (noGenerator) console.warn(`generated SDK not checked${noGenerator}`);

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Files that differ between two trees: missing on one side, or with other bytes. */
function differences(expected: string, actual: string): string[] {
  const expectedFiles = new Set(listFiles(expected));
  const actualFiles = new Set(listFiles(actual));
  const found: string[] = [];
  for (const file of actualFiles) {
    if (!expectedFiles.has(file)) found.push(`${file}: missing from clients/typescript/src/generated`);
    else if (!readFileSync(join(expected, file)).equals(readFileSync(join(actual, file))))
      found.push(`${file}: differs`);
  }
  for (const file of expectedFiles) if (!actualFiles.has(file)) found.push(`${file}: no longer generated`);
  return found;
}

describe('generated SDK', () => {
  it.skipIf(noGenerator)(
    `is what openapi/openapi.json generates${noGenerator}`,
    () => {
      const scratch = mkdtempSync(join(tmpdir(), 'sdk-staleness-'));
      try {
        const out = join(scratch, 'generated');
        execFileSync(process.execPath, ['--import', 'tsx', 'clients/typescript/generate.ts', '--out', out], {
          cwd: root,
          stdio: 'pipe',
        });
        const stale = differences(committed, out);
        expect(stale, `clients/typescript/src/generated is stale: run npm run sdk\n${stale.join('\n')}\n`).toEqual([]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
