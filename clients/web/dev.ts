/**
 * `npm run dev`: the API (restarted on every server change, port 3000) and the console's dev server with
 * hot reload (http://localhost:5173, the API's paths proxied to the API), together; Ctrl-C stops both.
 * Sign-in links and redirects point at the console's dev server (APP_URL and PUBLIC_URL, unless set).
 */
import { type ChildProcess, spawn } from 'node:child_process';

const consoleUrl = 'http://localhost:5173';
const env = {
  ...process.env,
  APP_URL: process.env.APP_URL ?? consoleUrl,
  PUBLIC_URL: process.env.PUBLIC_URL ?? consoleUrl,
  // One process that --watch restarts, not a cluster per core (on a PostgreSQL server), unless asked.
  WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? '1',
};
const children: ChildProcess[] = [
  spawn(process.execPath, ['--import', 'tsx', '--watch', 'server/main.ts'], { stdio: 'inherit', env }),
  spawn(process.execPath, ['node_modules/vite/bin/vite.js', '--config', 'clients/web/vite.config.ts'], {
    stdio: 'inherit',
    env,
  }),
];
const stop = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children) child.on('exit', stop);
