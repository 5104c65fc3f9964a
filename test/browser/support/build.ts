import { execFileSync } from 'node:child_process';

/** The console is built from its sources before the browser tests, so they test what the sources say. */
export default function buildConsole() {
  execFileSync('npm', ['run', '--silent', 'build:web'], { stdio: 'inherit' });
}
