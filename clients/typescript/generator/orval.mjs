// orval as installed in this directory (npm ci --prefix clients/typescript/generator), for generate.ts.
export { generate } from 'orval';
