import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config/config.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c.http.port).toBe(8080);
    expect(c.redis.prefix).toBe('quarry');
    expect(c.http.maxBodyBytes).toBe(20 * 1024 * 1024);
    expect(c.pipeline.queues).toEqual(['index', 'embed', 'crawl']);
    expect(c.embeddings).toEqual({ provider: 'glove' });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reports every invalid variable at once, by name', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'eighty', QUARRY_WORKER_QUEUES: 'section,bogus', QUARRY_EMBEDDER: 'openai', QUARRY_MASTER_KEY: 'short' });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/PORT:/);
    expect(message).toMatch(/QUARRY_WORKER_QUEUES/);
    expect(message).toMatch(/QUARRY_EMBEDDINGS_URL: is required when QUARRY_EMBEDDER=openai/);
    expect(message).toMatch(/QUARRY_MASTER_KEY: must be at least 16 characters/);
  });

  it('runs one API process per core up to 4 unless QUARRY_API_PROCESSES says; 0 or a fraction fails at start', () => {
    expect(loadConfig({}).http.processes).toBe(Math.min(4, availableParallelism()));
    expect(loadConfig({ QUARRY_API_PROCESSES: '6' }).http.processes).toBe(6);
    for (const bad of ['0', '1.5', 'many']) {
      expect(() => loadConfig({ QUARRY_API_PROCESSES: bad })).toThrow(/QUARRY_API_PROCESSES: must be a whole number from 1 to 256/);
    }
  });

  it('refuses QUARRY_TRUST_PROXY as true, a hop count or a /0 at start (any direct client could choose its address), saying what to write instead', () => {
    for (const bad of ['true', '1', '2', '0.0.0.0/0', '::/0', 'loopback, 0.0.0.0/0']) {
      expect(() => loadConfig({ QUARRY_TRUST_PROXY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ QUARRY_TRUST_PROXY: bad })).toThrow(/QUARRY_TRUST_PROXY: .*name the proxies instead: loopback .*10\.0\.0\.0\/8/);
    }
    expect(() => loadConfig({ QUARRY_TRUST_PROXY: 'proxy.internal' })).toThrow(/'proxy\.internal' is neither an IP address, a CIDR range/);
    expect(() => loadConfig({ QUARRY_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/prefix length must be a whole number from 1 to 32/);
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ QUARRY_TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
    expect(loadConfig({ QUARRY_TRUST_PROXY: 'loopback, 10.0.0.5,172.16.0.0/12 , fd00::/8,uniquelocal' }).http.trustProxy)
      .toEqual(['loopback', '10.0.0.5', '172.16.0.0/12', 'fd00::/8', 'uniquelocal']);
  });

  it('refuses a master key that is easy to guess at start, saying the rule; random and long keys pass', () => {
    for (const weak of ['aaaaaaaaaaaaaaaaaaaa', 'passwordpassword', 'changemechangeme', 'hunter2hunter2hunter2', '0123456789abcdef', '1234567890123456']) {
      expect(() => loadConfig({ QUARRY_MASTER_KEY: weak })).toThrow(/QUARRY_MASTER_KEY: is too easy to guess \(about \d+ bits\); use at least 16 characters worth at least 44 bits/);
    }
    for (const strong of ['test-master-key-0123456789', 'qm_kZ3v9Qe1xYbT7pLw2NcR8sHd', 'correct horse battery staple', 'Tr0ub4dor&3xkcd!']) {
      expect(loadConfig({ QUARRY_MASTER_KEY: strong }).auth.masterKey).toBe(strong);
    }
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ REDIS_URL: '', PORT: '' }).http.port).toBe(8080);
  });
});
