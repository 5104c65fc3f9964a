import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { workerCount } from '../../server/cluster';
import {
  DEFAULT_AUTH_FAILURES_PER_MINUTE,
  DEFAULT_DNS_RESOLVERS,
  DEFAULT_HEAVY_MAX_CONCURRENT,
  DEFAULT_POOL_SIZE,
  DEFAULT_PROPAGATION_RESOLVERS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  loadConfig,
  serverSecretsKey,
} from '../../server/config';

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

  it('takes HOLD_RELEASE_INTERVAL_MS from 10 ms to an hour, 5 s by default', () => {
    expect(loadConfig({}).holdReleaseIntervalMs).toBe(5000);
    expect(loadConfig({ HOLD_RELEASE_INTERVAL_MS: '10' }).holdReleaseIntervalMs).toBe(10);
    expect(loadConfig({ HOLD_RELEASE_INTERVAL_MS: '3600000' }).holdReleaseIntervalMs).toBe(3_600_000);
    for (const value of ['9', '3600001', '1.5'])
      expect(() => loadConfig({ HOLD_RELEASE_INTERVAL_MS: value })).toThrow(/HOLD_RELEASE_INTERVAL_MS must be/);
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

describe('network tools settings', () => {
  it('defaults to 3 public resolvers for /tools/dns, 8 for propagation, the system resolver and IANA whois', () => {
    const { tools } = loadConfig({});
    expect(tools.dnsResolvers).toEqual(DEFAULT_DNS_RESOLVERS);
    expect(tools.dnsResolvers).toHaveLength(3);
    expect(tools.propagationResolvers).toEqual(DEFAULT_PROPAGATION_RESOLVERS);
    expect(tools.propagationResolvers).toHaveLength(8);
    expect(tools.recursiveResolver).toBeUndefined();
    expect(tools.whoisRoot).toEqual({ host: 'whois.iana.org', port: 43 });
    expect(tools.tracerouteBin).toBe('traceroute');
    expect(tools.extraCa).toBeUndefined();
  });

  it('takes resolver lists as JSON, port 53 unless given', () => {
    const value = JSON.stringify([
      { label: 'Local', address: '127.0.0.1', port: 5353, location: 'Here' },
      { label: 'Six', address: '::1' },
    ]);
    expect(loadConfig({ TOOLS_DNS_RESOLVERS: value }).tools.dnsResolvers).toEqual([
      { label: 'Local', address: '127.0.0.1', port: 5353, location: 'Here' },
      { label: 'Six', address: '::1', port: 53 },
    ]);
  });

  it.each([
    'not json',
    '[]',
    '{}',
    '[{"label":"x"}]',
    '[{"label":"x","address":"dns.example"}]',
    '[{"label":"","address":"1.1.1.1"}]',
    '[{"label":"x","address":"1.1.1.1","port":0}]',
    '[{"label":"x","address":"1.1.1.1","port":65536}]',
  ])('refuses TOOLS_PROPAGATION_RESOLVERS=%s, naming the variable', (value) => {
    expect(() => loadConfig({ TOOLS_PROPAGATION_RESOLVERS: value })).toThrow(/TOOLS_PROPAGATION_RESOLVERS/);
  });

  it('takes host[:port] for the recursive resolver and the whois root, IPv6 in brackets', () => {
    const { tools } = loadConfig({ TOOLS_RECURSIVE_RESOLVER: '[::1]:5353', TOOLS_WHOIS_ROOT: 'whois.test:4343' });
    expect(tools.recursiveResolver).toEqual({ address: '::1', port: 5353 });
    expect(tools.whoisRoot).toEqual({ host: 'whois.test', port: 4343 });
    expect(loadConfig({ TOOLS_RECURSIVE_RESOLVER: '10.0.0.53' }).tools.recursiveResolver).toEqual({
      address: '10.0.0.53',
      port: 53,
    });
  });

  it.each(['10.0.0.53:0', '10.0.0.53:70000', '::1:53', 'a:b:c'])('refuses TOOLS_RECURSIVE_RESOLVER=%s', (value) => {
    expect(() => loadConfig({ TOOLS_RECURSIVE_RESOLVER: value })).toThrow(/TOOLS_RECURSIVE_RESOLVER must be/);
  });

  it('caps tool requests at once at 32 unless TOOLS_MAX_CONCURRENT says otherwise, from 1 to 10,000', () => {
    expect(loadConfig({}).tools.maxConcurrentRuns).toBe(32);
    expect(loadConfig({ TOOLS_MAX_CONCURRENT: '1' }).tools.maxConcurrentRuns).toBe(1);
    expect(loadConfig({ TOOLS_MAX_CONCURRENT: '10000' }).tools.maxConcurrentRuns).toBe(10_000);
  });

  it.each(['0', '10001', '2.5', 'many'])('refuses TOOLS_MAX_CONCURRENT=%s', (value) => {
    expect(() => loadConfig({ TOOLS_MAX_CONCURRENT: value })).toThrow(/TOOLS_MAX_CONCURRENT must be a whole number/);
  });

  it('takes an RDAP base URL without its trailing slash, https://rdap.org unless set', () => {
    expect(loadConfig({}).tools.rdapUrl).toBe('https://rdap.org');
    expect(loadConfig({ TOOLS_RDAP_URL: 'http://127.0.0.1:8080/rdap/' }).tools.rdapUrl).toBe(
      'http://127.0.0.1:8080/rdap',
    );
  });

  it.each(['ftp://rdap.test', 'rdap.org', 'not a url'])('refuses TOOLS_RDAP_URL=%s', (value) => {
    expect(() => loadConfig({ TOOLS_RDAP_URL: value })).toThrow(/TOOLS_RDAP_URL must be/);
  });

  describe('TOOLS_EXTRA_CA_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipam-ca-'));
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };

    it('is read at startup into the trust anchors', () => {
      const pem = rootCertificates[0] ?? '';
      expect(loadConfig({ TOOLS_EXTRA_CA_FILE: file('ca.pem', pem) }).tools.extraCa).toBe(pem);
    });

    it('stops the start when the file cannot be read', () => {
      expect(() => loadConfig({ TOOLS_EXTRA_CA_FILE: join(dir, 'missing.pem') })).toThrow(
        /TOOLS_EXTRA_CA_FILE cannot be read/,
      );
    });

    it.each([
      ['no certificate', 'hello'],
      ['a broken certificate', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'],
    ])('stops the start when the file holds %s', (_name, content) => {
      expect(() => loadConfig({ TOOLS_EXTRA_CA_FILE: file('bad.pem', content) })).toThrow(
        /TOOLS_EXTRA_CA_FILE must hold PEM certificates/,
      );
    });
  });
});

describe('fairness bounds', () => {
  it('runs 6 heavy requests at once unless HEAVY_MAX_CONCURRENT says otherwise, from 1 to 1000', () => {
    expect(loadConfig({}).heavyMaxConcurrent).toBe(DEFAULT_HEAVY_MAX_CONCURRENT);
    expect(loadConfig({ HEAVY_MAX_CONCURRENT: '1' }).heavyMaxConcurrent).toBe(1);
    expect(loadConfig({ HEAVY_MAX_CONCURRENT: '1000' }).heavyMaxConcurrent).toBe(1000);
  });

  it.each(['0', '1001', '1.5'])('refuses HEAVY_MAX_CONCURRENT=%s', (value) => {
    expect(() => loadConfig({ HEAVY_MAX_CONCURRENT: value })).toThrow(/HEAVY_MAX_CONCURRENT must be a whole number/);
  });

  it('allows 30 failed authentications a minute unless AUTH_FAILURES_PER_MINUTE says otherwise', () => {
    expect(loadConfig({}).authFailuresPerMinute).toBe(DEFAULT_AUTH_FAILURES_PER_MINUTE);
    expect(loadConfig({ AUTH_FAILURES_PER_MINUTE: '1' }).authFailuresPerMinute).toBe(1);
    expect(loadConfig({ AUTH_FAILURES_PER_MINUTE: '1000000' }).authFailuresPerMinute).toBe(1_000_000);
  });

  it.each(['0', '1000001', 'x'])('refuses AUTH_FAILURES_PER_MINUTE=%s', (value) => {
    expect(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: value })).toThrow(/AUTH_FAILURES_PER_MINUTE must be/);
  });
});

describe('SECRETS_KEY', () => {
  const hex = 'ab'.repeat(32);

  it('takes 32 bytes as 64 hex digits or in base64', () => {
    expect(loadConfig({ SECRETS_KEY: hex }).secretsKey).toEqual(Buffer.from(hex, 'hex'));
    const base64 = Buffer.from(hex, 'hex').toString('base64');
    expect(loadConfig({ SECRETS_KEY: base64 }).secretsKey).toEqual(Buffer.from(hex, 'hex'));
  });

  it.each(['ab'.repeat(31), 'ab'.repeat(33), 'not a key', Buffer.alloc(31).toString('base64')])(
    'refuses %s, naming the variable',
    (value) => {
      expect(() => loadConfig({ SECRETS_KEY: value })).toThrow(/SECRETS_KEY must be 32 random bytes/);
    },
  );

  it('is SECRETS_KEY when set, else the embedded database’s key file, made once, readable by its owner only', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'ipam-secrets-')), 'data');
    expect(serverSecretsKey({ secretsKey: Buffer.from(hex, 'hex'), dataDir })).toEqual({
      key: Buffer.from(hex, 'hex'),
      ephemeral: false,
    });
    const first = serverSecretsKey({ dataDir });
    expect(first.ephemeral).toBe(false);
    expect(serverSecretsKey({ dataDir }).key).toEqual(first.key);
    expect(statSync(join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });

  it('is a key of the process alone on a PostgreSQL server without SECRETS_KEY', () => {
    const a = serverSecretsKey({ databaseUrl: 'postgres://db/ipam', dataDir: '/nonexistent' });
    const b = serverSecretsKey({ databaseUrl: 'postgres://db/ipam', dataDir: '/nonexistent' });
    expect([a.ephemeral, a.key.length, a.key.equals(b.key)]).toEqual([true, 32, false]);
  });
});

describe('WEB_CONCURRENCY', () => {
  const postgres = 'postgres://db/ipam';

  it('is one worker per core on a PostgreSQL server unless told', () => {
    expect(workerCount(loadConfig({ DATABASE_URL: postgres }), 8)).toEqual({ count: 8 });
    expect(workerCount(loadConfig({ DATABASE_URL: postgres, WEB_CONCURRENCY: '3' }), 8)).toEqual({ count: 3 });
    expect(workerCount(loadConfig({ DATABASE_URL: postgres, WEB_CONCURRENCY: ' ' }), 8)).toEqual({ count: 8 });
  });

  it('is always 1 on the embedded database, saying so when more were asked for', () => {
    expect(workerCount(loadConfig({}), 8)).toEqual({ count: 1 });
    expect(workerCount(loadConfig({ WEB_CONCURRENCY: '1' }), 8)).toEqual({ count: 1 });
    const { count, warning } = workerCount(loadConfig({ WEB_CONCURRENCY: '4' }), 8);
    expect(count).toBe(1);
    expect(warning).toMatch(/WEB_CONCURRENCY=4 is ignored: the embedded database \(PGlite\) runs inside one process/);
  });

  it.each(['0', '1025', '1.5', 'auto'])('refuses WEB_CONCURRENCY=%s, naming the variable', (value) => {
    expect(() => loadConfig({ WEB_CONCURRENCY: value })).toThrow(/WEB_CONCURRENCY must be a whole number from 1/);
  });
});
