/**
 * What the service is doing, in Prometheus's text format (prom-client). One registry per process
 * (per `createDeps`, so tests never share counts): request latency per route and status, job
 * queue depth and age, webhook deliveries and their lag, audio queue and processing time,
 * payment outcomes, play-link cache hits, and the runtime's own (event-loop lag, memory, GC).
 *
 * Values that live elsewhere (queue depth in the database, the audio queue in the scheduler)
 * are read when Prometheus scrapes, through `readers` set by the code that owns them.
 */
import client from 'prom-client';

export interface JobQueueDepth {
  name: string;
  due: number;
  oldestDueSeconds: number;
}

export interface MetricReaders {
  jobQueue?: () => Promise<JobQueueDepth[]>;
  audioQueued?: () => number;
  playLinkCache?: () => { hits: number; misses: number };
}

export interface Metrics {
  registry: client.Registry;
  httpRequests: client.Histogram<'method' | 'route' | 'status'>;
  webhookDeliveries: client.Counter<'outcome'>;
  webhookDeliveryLag: client.Histogram;
  audioProcessing: client.Histogram<'outcome'>;
  payments: client.Counter<'outcome'>;
  readers: MetricReaders;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const readers: MetricReaders = {};

  const httpRequests = new client.Histogram({
    name: 'voicename_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, with their latency.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const webhookDeliveries = new client.Counter({
    name: 'voicename_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookDeliveryLag = new client.Histogram({
    name: 'voicename_webhook_delivery_lag_seconds',
    help: 'From the event to the successful delivery, retries included.',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600, 3600, 86_400],
    registers: [registry],
  });
  const audioProcessing = new client.Histogram({
    name: 'voicename_audio_processing_seconds',
    help: 'Upload to clean MP3 (queueing included), by outcome (ok, refused, busy, error).',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60],
    registers: [registry],
  });
  const payments = new client.Counter({
    name: 'voicename_entity_payments_total',
    help: 'Paid agent requests by outcome (instruction_issued, published, replayed, refunded).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  new client.Gauge({
    name: 'voicename_jobs_due',
    help: 'Jobs due now and not yet done, by job type.',
    labelNames: ['job'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await readers.jobQueue?.()) ?? []) this.set({ job: row.name }, row.due);
    },
  });
  new client.Gauge({
    name: 'voicename_jobs_oldest_due_seconds',
    help: 'How long the oldest due job of each type has waited.',
    labelNames: ['job'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await readers.jobQueue?.()) ?? []) this.set({ job: row.name }, row.oldestDueSeconds);
    },
  });
  new client.Gauge({
    name: 'voicename_audio_queued',
    help: 'Uploads waiting for an ffmpeg slot in this process.',
    registers: [registry],
    collect() {
      this.set(readers.audioQueued?.() ?? 0);
    },
  });
  new client.Counter({
    name: 'voicename_play_link_cache_lookups_total',
    help: "Play-link token lookups by this process's cache, by result (hit, miss).",
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const counts = readers.playLinkCache?.() ?? { hits: 0, misses: 0 };
      this.reset();
      this.inc({ result: 'hit' }, counts.hits);
      this.inc({ result: 'miss' }, counts.misses);
    },
  });

  return {
    registry,
    httpRequests,
    webhookDeliveries,
    webhookDeliveryLag,
    audioProcessing,
    payments,
    readers,
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
