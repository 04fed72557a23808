import { configDefaults, defineConfig } from 'vitest/config';

const shared = {
  globalSetup: ['test/helpers/global-redis.ts', 'test/helpers/global-postgres.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    // Integration files start worker processes and push hundreds of pages; two at a time suits 2 cores.
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'embedded', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**', 'test/abuse/**'] } },
      // Pathological inputs per route (scripts/abuse/), each file against its own service: requests sized to
      // hurt get generous timeouts instead of timed assertions (`npm run abuse` measures them).
      { test: { ...shared, name: 'abuse', include: ['test/abuse/*.test.ts'], testTimeout: 300_000, hookTimeout: 180_000 } },
      // The web app in a real Chromium, on the embedded store only: one long flow per file, each step
      // waiting on the page (indexing, insights) rather than on timers.
      { test: { ...shared, name: 'e2e', include: ['test/e2e/*.test.ts'], testTimeout: 300_000, hookTimeout: 180_000 } },
      // The HTTP suites again with PostgreSQL as the store: every check of the three interfaces must
      // hold on both backends (the fuzzers run on the embedded default only, to keep the run short).
      {
        test: {
          ...shared,
          name: 'postgres',
          include: ['test/api/*.test.ts'],
          exclude: ['test/api/*-fuzz.test.ts', 'test/api/search-cors.test.ts', 'test/api/rate-limit.test.ts'],
          env: { QUARRY_TEST_STORAGE: 'postgres' },
        },
      },
      // The content interface and the search interface with the keyword leg in Qdrant (QUARRY_KEYWORD_INDEX=qdrant, a stand-in per
      // service): the same checks pass, or the constructs that mode refuses are answered 400 as documented.
      {
        test: {
          ...shared,
          name: 'qdrant',
          include: ['test/api/content-search.test.ts', 'test/api/content-documents.test.ts', 'test/api/push-documents.test.ts', 'test/api/search-interface.test.ts', 'test/integration/multi-process.test.ts'],
          env: { QUARRY_TEST_STORAGE: 'qdrant' },
        },
      },
    ],
  },
});
