/**
 * Jobs as typed data. A job has two halves, kept in different modules on purpose:
 *
 * - its *definition* (`defineJob`): name, TypeBox payload schema and retry policy. It lives in
 *   a small module of the feature that owns the work (e.g. `events/service.ts`,
 *   `agent-api/callback-job.ts`) and imports nothing but TypeBox, so services can import it and
 *   `enqueue(…, job, payload)` with a payload type-checked against the schema;
 * - its *handler* (`handleJob`): the code that does the work, bound in the feature's `jobs.ts`
 *   with the per-process dependencies it needs, and listed in `src/jobs/registry.ts`.
 *
 * Handlers call services and services enqueue jobs; keeping the definition apart from the
 * handler is what keeps that from becoming an import cycle.
 *
 * The payload is stored as JSON and checked against the schema when the job is claimed: a row
 * that does not parse or does not match fails at once (`MalformedJobPayloadError`) instead of
 * reaching a handler with the wrong shape.
 */
import type { Static, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';

/** Payload schemas refer to no shared definitions. */
type NoContext = Record<string, never>;

export interface JobSpec<Payload extends TSchema> {
  /** Stored in `jobs.name`; never rename a job that may still have rows. */
  name: string;
  payload: Payload;
  /** Attempts before the job is marked failed (kept in the table for inspection). */
  maxAttempts: number;
  /** Delay in milliseconds before attempt `attempt + 1`, after `attempt` failed (1-based). */
  backoff(attempt: number): number;
  /** How long one attempt may hold its lease before another worker may take the job over. */
  leaseMs?: number;
}

export interface JobType<Payload extends TSchema = TSchema> {
  readonly name: string;
  readonly payload: Payload;
  readonly maxAttempts: number;
  backoff(attempt: number): number;
  readonly leaseMs: number | undefined;
  /** Parses and checks a stored payload; throws `MalformedJobPayloadError` when it is not one. */
  decode(stored: string): Static<Payload>;
}

/** A stored payload that is not JSON or does not match the job's schema: retrying cannot help. */
export class MalformedJobPayloadError extends Error {
  override readonly name = 'MalformedJobPayloadError';
}

export function defineJob<Payload extends TSchema>(spec: JobSpec<Payload>): JobType<Payload> {
  // Compiled on first use: definitions are module constants and most processes decode few of them.
  let validator: Validator<NoContext, Payload> | undefined;
  return {
    name: spec.name,
    payload: spec.payload,
    maxAttempts: spec.maxAttempts,
    backoff: spec.backoff,
    leaseMs: spec.leaseMs,
    decode(stored) {
      let value: unknown;
      try {
        value = JSON.parse(stored);
      } catch (err) {
        throw new MalformedJobPayloadError(`payload of ${spec.name} is not JSON: ${(err as Error).message}`);
      }
      const compiled = (validator ??= Compile<Payload, Validator<NoContext, Payload>>(spec.payload));
      if (compiled.Check(value)) return value;
      const problems = compiled
        .Errors(value)
        .slice(0, 5)
        .map((error) => `${error.instancePath || '/'} ${error.message}`);
      throw new MalformedJobPayloadError(`payload of ${spec.name} does not match its schema: ${problems.join('; ')}`);
    },
  };
}

export interface JobRunContext {
  /** 1-based number of this attempt. */
  attempt: number;
  jobId: string;
}

/** A job type with the code that runs it, as the worker needs it. */
export interface JobHandler {
  readonly job: JobType;
  /** Decodes the stored payload (see `JobType.decode`) and runs the handler on it. */
  run(storedPayload: string, context: JobRunContext): Promise<void>;
}

export function handleJob<Payload extends TSchema>(
  job: JobType<Payload>,
  handle: (payload: Static<Payload>, context: JobRunContext) => Promise<void>,
): JobHandler {
  return {
    job,
    run: async (storedPayload, context) => handle(job.decode(storedPayload), context),
  };
}
