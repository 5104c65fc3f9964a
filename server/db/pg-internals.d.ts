/** The part of pg's internals the pipeline uses: how pg turns a JavaScript value into a parameter. */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
