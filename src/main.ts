/**
 * Process entry point for the server: read config, open adapters, migrate, serve, and run the
 * background worker in-process unless RUN_WORKER=false. Stops gracefully on SIGTERM/SIGINT:
 * no new connections, in-flight requests and jobs finish, then the database closes.
 */
import { startTracing } from './tracing.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, riskySettings } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { removeStaleAudioTemp } from './audio/pipeline.js';
import { startMetricsServer } from './http/metrics.js';
import { closeDeps, createDeps, type Deps } from './deps.js';
import { removeStaleExportTemp } from './features/exports/service.js';
import { createWorker } from './jobs/registry.js';

const HOUR_MS = 60 * 60_000;

/** Removes what a crashed process left behind: upload and export temp folders, half-written audio files. */
async function removeCrashLeftovers(deps: Deps): Promise<void> {
  const folders = (await removeStaleAudioTemp(HOUR_MS)) + (await removeStaleExportTemp(HOUR_MS));
  const files = await deps.blobs.removeStaleTemporaryFiles(HOUR_MS);
  if (folders + files > 0) deps.logger.info({ folders, files }, 'removed leftovers of an earlier crash');
}

async function main() {
  // Files this process creates (database, voices, temporary uploads, keys) are its user's alone.
  process.umask(0o077);
  const config = loadConfig();
  const tracing = await startTracing({ endpoint: config.otelEndpoint, serviceName: 'voicename' });
  const deps = createDeps(config, { tracing });
  for (const risk of riskySettings(config)) deps.logger.warn(`risky setting in force: ${risk}`);
  const applied = await migrateToLatest(deps.db);
  if (applied.length > 0) deps.logger.info({ migrations: applied }, 'database migrated');
  const app = await buildApp(deps);
  const worker = config.runWorker ? createWorker(deps) : null;
  worker?.start();
  await app.listen({ port: config.port, host: config.host });
  const metricsServer =
    config.metricsPort === null ? null : await startMetricsServer(deps.metrics, config.metricsPort, config.host);
  // Leftovers of a crash (raw uploads, half-written audio files), at start and every hour.
  const removeLeftovers = () =>
    removeCrashLeftovers(deps).catch((err: unknown) => deps.logger.warn({ err }, 'could not remove crash leftovers'));
  void removeLeftovers();
  const leftovers = setInterval(() => void removeLeftovers(), HOUR_MS);
  leftovers.unref();
  deps.logger.info(
    { base_url: config.baseUrl, database: config.database.dialect, worker: worker !== null },
    `voicename listening on ${config.baseUrl}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 15_000 + config.shutdownDelayMs);
    timer.unref();
    clearInterval(leftovers);
    // Drain: `/readyz` says 503 while requests are still served, so the load balancer's health
    // check takes this process out before it stops accepting connections (SHUTDOWN_DELAY_MS).
    deps.lifecycle.draining = true;
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await app.close();
    metricsServer?.close();
    await worker?.stop();
    await closeDeps(deps);
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
