import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createPostgresStorage } from '../../shared/storage/postgres/create-postgres-storage.js';
import { POSTGRES_MIGRATIONS } from '../../shared/storage/postgres/pg-migrations.js';

describe('postgres storage setup', () => {
  const url = inject('databaseUrl');

  it('creates its schema and migrates it once when many processes start at the same moment', async () => {
    const schema = `t_start_${randomBytes(4).toString('hex')}`;
    const all = await Promise.all(Array.from({ length: 6 }, () => createPostgresStorage({ url, schema, poolSize: 2 })));
    try {
      expect(all.every((s) => s.backend === 'postgres')).toBe(true);
      await Promise.all(all.map((s) => s.ping()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    } finally {
      await Promise.all(all.map((s) => s.close()));
    }
  });

  it('refuses a schema name it would have to quote', async () => {
    await expect(createPostgresStorage({ url, schema: 'Bad; DROP' })).rejects.toThrow(/schema name/);
  });

  it('closes the external indexes it was given', async () => {
    const closed: string[] = [];
    type External = NonNullable<Parameters<typeof createPostgresStorage>[0]['external']>;
    const vectors = { external: true, close: async () => { closed.push('vectors'); } } as unknown as External['vectors'];
    const keywords = { close: async () => { closed.push('keywords'); } } as unknown as External['keywords'];
    const schema = `t_vec_${randomBytes(4).toString('hex')}`;
    const s = await createPostgresStorage({ url, schema, external: { vectors, keywords } });
    expect(s.vectors).toBe(vectors);
    expect(s.keywords).toBe(keywords);
    await s.close();
    expect(closed).toEqual(['vectors', 'keywords']);
    await expect(s.ping()).rejects.toThrow();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
    await c.end();
  });
});
