/** Entry point for a worker-only process (`npm run worker`), for running workers apart from the API. */
import { type Config, loadConfig, riskySettings } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { startMetricsServer } from './http/metrics.js';
import { closeDeps, createDeps } from './deps.js';
import { createWorker } from './jobs/registry.js';
import { checkDataDir, explainStartupError } from './startup-errors.js';
import { startTracing } from './tracing.js';

/** The settings in force once read: what a start-up failure is explained against. */
let loaded: Config | null = null;

async function main() {
  // Files this process creates (database, voices, temporary uploads, keys) are its user's alone.
  process.umask(0o077);
  const config = loadConfig();
  loaded = config;
  checkDataDir(config.dataDir);
  const tracing = await startTracing({ endpoint: config.otelEndpoint, serviceName: 'voicename-worker' });
  const deps = createDeps(config, { tracing });
  for (const risk of riskySettings(config)) deps.logger.warn(`risky setting in force: ${risk}`);
  await migrateToLatest(deps.db);
  const worker = createWorker(deps);
  worker.start();
  const metricsServer =
    config.metricsPort === null ? null : await startMetricsServer(deps.metrics, config.metricsPort, config.host);
  deps.logger.info({ worker: worker.id, database: config.database.dialect }, 'voicename worker started');
  const stop = async () => {
    await worker.stop();
    metricsServer?.close();
    await closeDeps(deps);
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(explainStartupError(err, loaded) ?? err);
  process.exit(1);
});
