import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL_SIZE, DEFAULT_SHUTDOWN_TIMEOUT_MS, loadConfig } from '../../server/config';

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

describe('TRUST_PROXY', () => {
  it('trusts no proxy when unset, empty or false', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: ' , ' }).trustProxy).toBe(false);
  });

  it('takes a hop count', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
  });

  it("takes addresses, CIDRs and Express's names, as one comma-separated list", () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1,linklocal,uniquelocal' }).trustProxy).toBe(
      '10.0.0.0/8,192.168.1.7,fd00::/8,::1,linklocal,uniquelocal',
    );
  });

  it.each(['true', 'TRUE', ' true '])('refuses TRUST_PROXY=%s, explaining what it would trust', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      /TRUST_PROXY=true is refused.*X-Forwarded-For.*per-IP rate limits/s,
    );
  });

  it.each(['10.0.0.0/33', 'example.com', '1,10.0.0.1', '10.0.0.1/8/1', '*', 'fd00::/129', '101'])(
    'refuses TRUST_PROXY=%s, naming the variable',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    },
  );
});

describe('operations settings', () => {
  it('defaults: LOG_LEVEL info, no metrics token, no CORS origins, a 10 s shutdown', () => {
    const config = loadConfig({});
    expect(config.logLevel).toBe('info');
    expect(config.metricsToken).toBeUndefined();
    expect(config.corsOrigins).toEqual([]);
    expect(config.shutdownTimeoutMs).toBe(DEFAULT_SHUTDOWN_TIMEOUT_MS);
    expect(DEFAULT_SHUTDOWN_TIMEOUT_MS).toBe(10_000);
  });

  it("takes LOG_LEVEL among pino's levels and refuses others", () => {
    expect(loadConfig({ LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(loadConfig({ LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of/);
  });

  it('takes METRICS_TOKEN and SHUTDOWN_TIMEOUT_MS', () => {
    expect(loadConfig({ METRICS_TOKEN: 's3cret' }).metricsToken).toBe('s3cret');
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '2500' }).shutdownTimeoutMs).toBe(2500);
    for (const value of ['0', '-1', '1.5', 'soon'])
      expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: value })).toThrow(/SHUTDOWN_TIMEOUT_MS must be/);
  });

  it('takes CORS_ORIGINS as exact origins, normalised as browsers send them', () => {
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://Admin.Example.com:443/' })
        .corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'https://admin.example.com']);
  });

  it.each([
    '*',
    'app.example.com',
    'https://app.example.com/path',
    'ftp://files.example.com',
    'https://a.test?x=1',
    'null',
  ])('refuses CORS_ORIGINS=%s', (value) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS entry .* is not an exact origin/);
  });
});
