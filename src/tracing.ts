/**
 * OpenTelemetry tracing, on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (off, and not even loaded,
 * otherwise): requests through the official Fastify instrumentation (`@fastify/otel`), outbound
 * calls (webhooks, callbacks, Stripe, S3) through the undici instrumentation, and each background
 * job as a span of its own (src/jobs/worker.ts, through the API, which is a no-op without this).
 * Spans go to the collector over OTLP/HTTP in batches; `shutdown()` flushes them.
 */
import type { FastifyPluginCallback } from 'fastify';

export interface Tracing {
  /** Registered first in buildApp, so every route and hook is covered. */
  fastifyPlugin: FastifyPluginCallback;
  shutdown(): Promise<void>;
}

export async function startTracing(input: { endpoint: string | null; serviceName: string }): Promise<Tracing | null> {
  if (!input.endpoint) return null;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    instrumentation,
    undici,
    otel,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
    import('@fastify/otel'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': input.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${input.endpoint.replace(/\/$/, '')}/v1/traces` }))],
  });
  provider.register();
  const unregister = instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new undici.UndiciInstrumentation()],
  });
  // Health checks and scrapes would drown the traces that matter.
  const fastify = new otel.FastifyOtelInstrumentation({
    ignorePaths: (route) => ['/healthz', '/readyz', '/metrics'].includes(route.url),
  });
  fastify.setTracerProvider(provider);
  return {
    fastifyPlugin: fastify.plugin(),
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}
