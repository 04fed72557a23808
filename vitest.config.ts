import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-redis.ts', 'test/helpers/global-postgres.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration files start worker processes and push hundreds of pages; two at a time suits 2 cores.
    maxWorkers: 2,
  },
});
