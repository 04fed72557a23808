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

  it('treats empty variables as unset', () => {
    expect(loadConfig({ REDIS_URL: '', PORT: '' }).http.port).toBe(8080);
  });
});
