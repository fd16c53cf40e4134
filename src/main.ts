/**
 * Process entry point for the server: read config, open adapters, migrate, serve, and run the
 * background worker in-process unless RUN_WORKER=false. Stops gracefully on SIGTERM/SIGINT:
 * no new connections, in-flight requests and jobs finish, then the database closes.
 */
import { startTracing } from './tracing.js';
import { buildApp } from './app.js';
import { type Config, loadConfig, riskySettings } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { startMetricsServer } from './http/metrics.js';
import { closeDeps, createDeps, type Deps } from './deps.js';
import { createWorker } from './jobs/registry.js';
import { removeLeftoverTempFolders } from './lib/process-temp.js';
import { checkDataDir, explainStartupError } from './startup-errors.js';

const HOUR_MS = 60 * 60_000;

/**
 * Removes what a crashed process left behind: the temp folders (raw uploads, logos, export
 * CSVs) of processes no longer running, and half-written audio files over an hour old.
 */
async function removeCrashLeftovers(deps: Deps): Promise<void> {
  try {
    const folders = await removeLeftoverTempFolders({ unownedOlderThanMs: HOUR_MS });
    const files = await deps.blobs.removeStaleTemporaryFiles(HOUR_MS);
    if (folders + files > 0) deps.logger.info({ folders, files }, 'removed leftovers of an earlier crash');
  } catch (err) {
    deps.logger.warn({ err }, 'could not remove crash leftovers');
  }
}

/** The settings in force once read: what a start-up failure is explained against. */
let loaded: Config | null = null;

async function main() {
  // Files this process creates (database, voices, temporary uploads, keys) are its user's alone.
  process.umask(0o077);
  const config = loadConfig();
  loaded = config;
  checkDataDir(config.dataDir);
  const tracing = await startTracing({ endpoint: config.otelEndpoint, serviceName: 'voicename' });
  const deps = createDeps(config, { tracing });
  for (const risk of riskySettings(config)) deps.logger.warn(`risky setting in force: ${risk}`);
  const applied = await migrateToLatest(deps.db);
  if (applied.length > 0) deps.logger.info({ migrations: applied }, 'database migrated');
  // Before serving: what a killed process left (people's voices among it) goes first, and a
  // stop that follows the start at once never races it.
  let sweeping = removeCrashLeftovers(deps);
  await sweeping;
  const app = await buildApp(deps);
  const worker = config.runWorker ? createWorker(deps) : null;
  worker?.start();
  await app.listen({ port: config.port, host: config.host });
  const metricsServer =
    config.metricsPort === null ? null : await startMetricsServer(deps.metrics, config.metricsPort, config.host);
  // Every hour too: a sibling process on this machine may have died since.
  const leftovers = setInterval(() => {
    sweeping = removeCrashLeftovers(deps);
  }, HOUR_MS);
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
    // A sweep under way finishes before the blob store and the database close under it.
    await sweeping;
    await closeDeps(deps);
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(explainStartupError(err, loaded) ?? err);
  process.exit(1);
});
