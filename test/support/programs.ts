/**
 * Tests that need a system program (traceroute, openssl) skip on a machine without it, saying so in their
 * titles, since the README promises that `npm ci` and `npm test` need nothing else. Under CI (`CI` set, as
 * .ci/run sets it and installs them) nothing is skipped: a missing program fails the build there.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Why a test needing the program `name` cannot run here (`traceroute is not installed`), or '' when it can. */
export function missingProgram(name: string): string {
  if (process.env.CI) return '';
  const onPath = (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (onPath) return '';
  console.warn(`${name} is not installed: the tests that run it are skipped (CI installs it)`);
  return `${name} is not installed`;
}

/** What a skipped test's title ends with: ` (skipped: traceroute is not installed)`, or nothing. */
export const skippedBecause = (reason: string) => (reason ? ` (skipped: ${reason})` : '');
