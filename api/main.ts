import cluster from 'node:cluster';
import { runApiProcess } from './api-process.js';
import { superviseApiProcesses } from './api-cluster.js';
import { ConfigError, loadConfig } from '../shared/config/config.js';
import { createLogger } from '../shared/logging/create-logger.js';
import { runMain } from '../shared/process/process-lifecycle.js';
import { PRIVATE_UMASK } from '../shared/storage/private-folder.mjs';

/** The API: `npm run start:api`. QUARRY_API_PROCESSES above 1 starts that many processes sharing the port. */
async function main() {
  // What this process writes to the data folder (SQLite's files) is its user's alone (docs/security.md).
  process.umask(PRIVATE_UMASK);
  const config = loadConfig();
  if (config.http.processes > 1 && cluster.isPrimary) return superviseApiProcesses(config, createLogger(config.log.level, 'api-primary'));
  await runApiProcess(config, createLogger(config.log.level, 'api'));
}

runMain(main, (e) => e instanceof ConfigError);
