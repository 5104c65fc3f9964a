/**
 * The web console (clients/web), built to static files (`npm run build:web`, run by `npm ci`) and served by
 * this server at the paths the API does not use: its files under /assets (named by content hash, cached for
 * a year), and its page, index.html, for every other GET a browser makes for a page (`/`, `/login`,
 * `/billing?checkout=…`, `/subnets/…`), which the console routes itself.
 *
 * The page gets a strict Content-Security-Policy: scripts, styles, images and connections from this origin
 * only, no inline script or style, no plugins, never framed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router } from 'express';
import helmet from 'helmet';
import { CONSOLE_DIST } from '../paths';

/** Paths that are the API's or the server's own, never the console's page. */
const NOT_CONSOLE = /^\/(api|docs|openapi\.json|healthz|readyz|metrics)(\/|$)/;

const pageHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
});

/**
 * The console's routes, or null when it is not built (the server then answers `/` with a pointer to the
 * build command, and the API works as ever).
 */
export function consoleRoutes(distDir = CONSOLE_DIST): Router | null {
  const indexFile = join(distDir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const page = readFileSync(indexFile);
  const router = Router();
  router.use(
    '/assets',
    pageHeaders,
    express.static(join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }),
  );
  // The API's paths, and a file that is not there (a name with an extension), are not pages: they leave this
  // router before any of its routes matches, so their headers and the route they are logged under stay the API's.
  router.use((req, _res, next) =>
    NOT_CONSOLE.test(req.path) || /\.[a-z0-9]+$/i.test(req.path) ? next('router') : next(),
  );
  router.get('*', pageHeaders, (_req, res) => {
    // The page changes with each build and may be behind a sign-in: always revalidated, never stored.
    res.set('Cache-Control', 'no-store').type('html').send(page);
  });
  return router;
}
