import { rmSync } from 'node:fs';
import { OBSERVED_DIR } from './observed';

/** Each run starts with no recorded observations; test/status-coverage.ts reads them after the run. */
export default function setup() {
  rmSync(OBSERVED_DIR, { recursive: true, force: true });
}
