import type { Config } from '../config';
import { openDatabase } from './connection';

/** The database the configuration names: a PostgreSQL server when DATABASE_URL is set, else PGlite in DATA_DIR. */
export const openConfiguredDatabase = (config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir'>) =>
  openDatabase(
    config.databaseUrl
      ? { databaseUrl: config.databaseUrl, maxConnections: config.databasePoolSize }
      : { dataDir: config.dataDir },
  );
