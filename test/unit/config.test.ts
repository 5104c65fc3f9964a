import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL_SIZE, loadConfig } from '../../server/config';

describe('configuration from the environment', () => {
  it('keeps DEFAULT_POOL_SIZE connections to a PostgreSQL server unless told', () => {
    expect(loadConfig({}).databasePoolSize).toBe(DEFAULT_POOL_SIZE);
    expect(loadConfig({ DATABASE_POOL_SIZE: '' }).databasePoolSize).toBe(DEFAULT_POOL_SIZE);
  });

  it('takes DATABASE_POOL_SIZE from 1 to 1000', () => {
    expect(loadConfig({ DATABASE_POOL_SIZE: '1' }).databasePoolSize).toBe(1);
    expect(loadConfig({ DATABASE_POOL_SIZE: '1000' }).databasePoolSize).toBe(1000);
  });

  it.each(['0', '1001', '2.5', 'ten'])('refuses DATABASE_POOL_SIZE=%s, naming the variable', (value) => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: value })).toThrow(/DATABASE_POOL_SIZE must be a whole number/);
  });
});
