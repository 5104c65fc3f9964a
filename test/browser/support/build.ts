import { execFileSync } from 'node:child_process';

/** The console is built from its sources before the browser tests, so they test what the sources say. */
export default function buildConsole() {
  // A production build, as npm ci makes it (vitest sets NODE_ENV=test, which would bundle React's development build).
  execFileSync('npm', ['run', '--silent', 'build:web'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
