/** Entry point for a worker-only process (`npm run worker`), for running workers apart from the API. */
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { closeDeps, createDeps } from './deps.js';
import { warnIfPrivateUrlsAllowed } from './features/webhooks/jobs.js';
import { createWorker } from './jobs/registry.js';

async function main() {
  const config = loadConfig();
  const deps = createDeps(config);
  warnIfPrivateUrlsAllowed(deps);
  await migrateToLatest(deps.db);
  const worker = createWorker(deps);
  worker.start();
  deps.logger.info({ worker: worker.id, database: config.database.dialect }, 'voicename worker started');
  const stop = async () => {
    await worker.stop();
    await closeDeps(deps);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? `Configuration error: ${err.message}` : err);
  process.exit(1);
});
