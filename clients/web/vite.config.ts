/**
 * The web console's build (`npm run build:web`, run by `npm ci`) and dev server (`npm run dev`, which also
 * runs the API on port 3000 and proxies the API's paths to it, so the session cookie stays first-party).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const api = process.env.IPAM_API_URL ?? 'http://localhost:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline script anywhere: the page's Content-Security-Policy allows scripts from this origin only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: {
      // TanStack Query marks its modules "use client" for React Server Components, which a plain SPA has not.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(['/api', '/docs', '/openapi.json'].map((path) => [path, api])),
  },
});
