/**
 * Glue between the metrics and the code that holds the values: queue depths read from the
 * database when Prometheus scrapes, and the audio processor's timing observed around each call.
 */
import { AudioBusyError, type AudioProcessor, AudioRejectedError } from './audio/pipeline.js';
import type { Db } from './db/index.js';
import { dueDeliveries } from './features/webhooks/deliveries-service.js';
import { dueJobDepth } from './jobs/repo.js';
import type { Clock } from './lib/clock.js';
import type { JobQueueDepth, Metrics } from './lib/metrics.js';

const secondsSince = (iso: string | null, now: Date) =>
  iso === null ? 0 : Math.max(0, (now.getTime() - Date.parse(iso)) / 1000);

/** Typed jobs by name, and webhook deliveries (their own table) as `webhook.delivery`. */
export async function readJobQueueDepth(db: Db, clock: Clock): Promise<JobQueueDepth[]> {
  const now = clock.now();
  const jobs = await dueJobDepth(db.kysely, now);
  const deliveries = await dueDeliveries({ db, clock });
  return [
    ...jobs.map((row) => ({ name: row.name, due: Number(row.due), oldestDueSeconds: secondsSince(row.oldest, now) })),
    { name: 'webhook.delivery', due: deliveries.due, oldestDueSeconds: secondsSince(deliveries.oldest, now) },
  ];
}

/** The processor with every call timed by outcome: ok, refused (bad audio), busy (queue full), error. */
export function instrumentAudio(audio: AudioProcessor, metrics: Pick<Metrics, 'audioProcessing'>): AudioProcessor {
  return {
    ...(audio.queued ? { queued: () => audio.queued?.() ?? 0 } : {}),
    async process(upload, options) {
      const end = metrics.audioProcessing.startTimer();
      try {
        const result = await audio.process(upload, options);
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({ outcome: error instanceof AudioRejectedError ? 'refused' : error instanceof AudioBusyError ? 'busy' : 'error' });
        throw error;
      }
    },
  };
}
