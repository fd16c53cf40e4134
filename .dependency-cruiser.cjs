/**
 * The architecture's import rules (ARCHITECTURE.md, "The rules, checked"), enforced by
 * `npm run lint`. `tests/architecture.test.ts` runs these same rules on small fixture trees that
 * break each one, so a rule that silently stopped matching fails there.
 *
 * A file's role is read from its name: `routes.ts` / `*-routes.ts` (HTTP), `views.ts` (pages),
 * `repo.ts` (queries), and every other file of a feature (`service.ts`, `*-service.ts`,
 * `jobs.ts`, `schemas.ts`, helpers) is service-level: no SQL, no Fastify.
 */
/** Code that talks to the outside world (database, storage, audio, speech, payments, mail) or renders images. */
const ADAPTERS = '^src/(db|blobs|audio|speech|integrations|cards)/';
const ROUTES = '^src/features/[^/]+/(routes|[^/]+-routes)\\.ts$';
const VIEWS = ['^src/features/[^/]+/views\\.ts$', '^src/web/views/'];
/**
 * Feature files that are HTTP plumbing without being routes. They hold the routes' role: they may
 * use Fastify, and like routes they never reach a repo or the database.
 */
const HTTP_HELPERS = [
  // The dashboard's cookies, security headers, session guard and form-token check, shared by its routes.
  '^src/features/dashboard/http\\.ts$',
  // The preHandler that decides who may use each dashboard route (`config.access`).
  '^src/features/dashboard/access\\.ts$',
  // Reading the dashboard's query strings and form bodies off the request.
  '^src/features/dashboard/forms\\.ts$',
  // The content-type parser and error shape of the audio upload routes' scope.
  '^src/features/recordings/audio-body\\.ts$',
  // The hook that turns 404s of erased public play-link URLs into 410s.
  '^src/features/erasure/gone\\.ts$',
  // The error handler of the agent API's spec bodies, installed by its routes and the profile pages'.
  '^src/features/agent-api/http\\.ts$',
];
/** Where SQL lives: every `repo.ts` (a feature's, the jobs queue's, the sandbox processor's) and the database layer. */
const QUERIES = ['(^|/)repo\\.ts$', '^src/db/'];
/** The database layer's query builders: callers of these write SQL, so they are repos. */
const DB_QUERY_HELPERS = '^src/db/(lease-claim|keyset)\\.ts$';
const KYSELY = '(^|/)node_modules/kysely/';
const FASTIFY = '(^|/)node_modules/(fastify|@fastify/[^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Imports flow one way; a cycle means two modules should be one, or a piece belongs lower down. ' +
        'A cycle closed only by `import type` is allowed: types vanish at run time (deps.ts builds the agent API setup, which is typed by Deps).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'routes-and-views-call-services',
      severity: 'error',
      comment: 'Routes and views call services; only repos and adapters touch the database.',
      from: { path: [ROUTES, ...VIEWS, ...HTTP_HELPERS] },
      to: { path: ['^src/.*/repo\\.ts$', '^src/db/', KYSELY] },
    },
    {
      name: 'sql-only-in-repos',
      severity: 'error',
      comment:
        "Every query is in a repo.ts (or src/db): the kysely runtime (the `sql` tag, expression helpers) and the database layer's query helpers are theirs. Types from kysely are fine anywhere but routes and views.",
      from: { path: '^src/', pathNot: QUERIES },
      to: { path: [KYSELY, DB_QUERY_HELPERS], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'fastify-only-in-routes',
      severity: 'error',
      comment:
        'Services, repos, jobs, schemas and helpers of a feature never see Fastify: they take plain values, so any caller (a route, a job, the MCP server, the CLI) can use them. HTTP belongs to routes, views and the listed HTTP helpers.',
      from: { path: '^src/features/', pathNot: [ROUTES, ...VIEWS, ...HTTP_HELPERS] },
      to: { path: FASTIFY },
    },
    {
      name: 'no-other-feature-repo',
      severity: 'error',
      comment: "A feature reads another feature's data through that feature's service.",
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/[^/]+/repo\\.ts$', pathNot: '^src/features/$1/' },
    },
    {
      name: 'no-other-feature-routes',
      severity: 'error',
      comment:
        "A feature never imports another feature's routes: what both need lives in the owner's service or a helper beside it. (app.ts registers the routes.)",
      from: { path: '^src/features/([^/]+)/' },
      to: { path: ROUTES, pathNot: '^src/features/$1/' },
    },
    {
      name: 'shared-code-knows-no-feature',
      severity: 'error',
      comment:
        'Shared code and adapters know nothing of features. Glue may: app.ts, deps.ts, the jobs registry, and the Fastify plugins in src/http.',
      from: { path: ['^src/lib/', '^src/i18n/', '^src/web/', '^src/jobs/', ADAPTERS], pathNot: '^src/jobs/registry\\.ts$' },
      to: { path: '^src/features/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
