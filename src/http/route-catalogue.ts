/**
 * Every route the application registers, with its method, full URL and config, collected as
 * routes are added (Fastify's `onRoute`). Rules that must hold for every route of a kind (each
 * mutating route has an audit action, each dashboard form refuses viewers) are tested against
 * this list, so a route added later cannot slip past them.
 */
import type { FastifyContextConfig, FastifyInstance } from 'fastify';

export interface CatalogueRoute {
  method: string;
  url: string;
  config: FastifyContextConfig;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeCatalogue: readonly CatalogueRoute[];
  }
}

export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Call first, before any route or plugin is registered. */
export function registerRouteCatalogue(app: FastifyInstance): void {
  const routes: CatalogueRoute[] = [];
  app.decorate('routeCatalogue', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, config: route.config ?? {} });
  });
}
