// Lint rules: ESLint's and typescript-eslint's recommended sets, type-aware rules, and "no SQL
// outside repos" (ARCHITECTURE.md, "The rules, checked"). The import rules are
// dependency-cruiser's (.dependency-cruiser.cjs); `npm run lint` runs both.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'packages/*/dist/', 'data/', '.tmp/', 'coverage/'] },
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
    // Every query is in a repo.ts (or src/db), so a query is always found in one place: services
    // decide, helpers compute, routes speak HTTP, none of them writes SQL. The import half of the
    // rule (the kysely runtime, src/db's query helpers) is dependency-cruiser's, `sql-only-in-repos`.
    files: ['src/**/*.ts'],
    ignores: ['src/**/repo.ts', 'src/db/**', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|updateTable|insertInto|deleteFrom|replaceInto|mergeInto)$/]',
          message: 'Queries belong in a repo.ts (or src/db).',
        },
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: 'Queries belong in a repo.ts (or src/db).' },
        { selector: "CallExpression[callee.object.name='sql']", message: 'Queries belong in a repo.ts (or src/db).' },
      ],
    },
  },
  {
    // A file is read in one sitting: past 400 lines it holds more than one idea and is split
    // by idea (ARCHITECTURE.md). Tests and frozen migrations are exempt.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/db/migrations/*.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Migrations are frozen in time: they see the database as it was, not as db/schema.ts says.
    files: ['src/db/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript outside the TypeScript project (worker threads, configs): no type
    // information to use; Node's timers are globals there.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { setInterval: 'readonly', clearInterval: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
  {
    // The build and start scripts run as programs of their own.
    files: ['scripts/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly' },
    },
  },
);
