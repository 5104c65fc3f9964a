// Pure IP arithmetic on bigints: no I/O, no database, no HTTP.
export * from './free';
export * from './ip';
export * from './split';
export * from './usage';
