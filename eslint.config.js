// Lint rules: ESLint's and typescript-eslint's recommended sets, and the architecture's import
// rules (ARCHITECTURE.md, "The rules"), so a broken layer fails `npm run lint`, not a review.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const features = fs
  .readdirSync(path.join(import.meta.dirname, 'src/features'), { withFileTypes: true })
  .flatMap((entry) => (entry.isDirectory() ? [entry.name] : []));
/** Code that talks to the outside world (database, storage, audio, speech, payments, mail). */
const adapters = ['src/db', 'src/blobs', 'src/audio', 'src/speech', 'src/integrations'];

export const layerZones = [
  // Routes and views shape HTTP and HTML; data comes from services.
  ...['src/features/*/routes.ts', 'src/features/*/*-routes.ts', 'src/web/views', 'src/features/*/views.ts'].map((target) => ({
    target: `./${target}`,
    from: ['./src/features/*/repo.ts', './src/db/**', './node_modules/kysely/**'],
    message: 'Routes and views call services; only repos and adapters touch the database.',
  })),
  // A feature reads another feature's data through that feature's service.
  ...features.map((feature) => ({
    target: `./src/features/${feature}`,
    from: `./src/features/!(${feature})/repo.ts`,
    message: "Call the other feature's service instead of its repo.",
  })),
  // Shared code and adapters know nothing of features. Glue may: app.ts, deps.ts, the jobs
  // registry, and src/http's Fastify plugins (authentication, idempotency) that call a service.
  ...['src/lib', 'src/web', 'src/jobs', ...adapters].map((target) => ({
    target: `./${target}`,
    from: './src/features/**',
    message: 'Shared code and adapters must not depend on a feature.',
  })),
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.tmp/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: the compiler's knowledge catches what review misses (a promise nobody
    // awaits, a switch that forgot a state, a cast that hides nothing).
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Services decide; repos hold every query (so a query is always found in one place per feature).
    files: ['src/features/*/service.ts', 'src/features/*/*-service.ts', 'src/features/*/routes.ts', 'src/features/*/*-routes.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|updateTable|insertInto|deleteFrom|replaceInto|mergeInto)$/]',
          message: "Queries belong in the feature's repo.ts.",
        },
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: "Queries belong in the feature's repo.ts." },
      ],
    },
  },
  {
    // Migrations are frozen in time: they see the database as it was, not as db/schema.ts says.
    files: ['src/db/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript outside the TypeScript project: no type information to use.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Glue that wires features together.
    files: ['src/jobs/registry.ts'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones.filter((zone) => zone.from !== './src/features/**') }],
    },
  },
);
