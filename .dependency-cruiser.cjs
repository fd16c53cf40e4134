/**
 * The architecture's import rules (ARCHITECTURE.md, "The rules, checked"), enforced by
 * `npm run lint`. `tests/architecture.test.ts` runs these same rules on small fixture trees that
 * break each one, so a rule that silently stopped matching fails there.
 */
/** Code that talks to the outside world (database, storage, audio, speech, payments, mail) or renders images. */
const ADAPTERS = '^src/(db|blobs|audio|speech|integrations|cards)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Imports flow one way; a cycle means two modules should be one, or a piece belongs lower down. ' +
        'A cycle closed only by `import type` is allowed: types vanish at run time (deps.ts builds the entities context, which is typed by Deps).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'routes-and-views-call-services',
      severity: 'error',
      comment: 'Routes and views call services; only repos and adapters touch the database.',
      from: { path: ['^src/features/[^/]+/(routes|[^/]+-routes|views)\\.ts$', '^src/web/views/'] },
      to: { path: ['^src/features/[^/]+/repo\\.ts$', '^src/db/', '(^|/)node_modules/kysely/'] },
    },
    {
      name: 'no-other-feature-repo',
      severity: 'error',
      comment: "A feature reads another feature's data through that feature's service.",
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/[^/]+/repo\\.ts$', pathNot: '^src/features/$1/' },
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
