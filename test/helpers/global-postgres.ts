import type { TestProject } from 'vitest/node';
import { setupPostgres, teardownPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One fresh database for the run (see postgres.ts); test files take schemas of their own in it. */
export async function setup(project: TestProject) {
  project.provide('databaseUrl', await setupPostgres());
}

export async function teardown() {
  await teardownPostgres();
}
