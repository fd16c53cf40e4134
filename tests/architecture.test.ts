/**
 * The architecture's rules are enforced by `npm run lint`: import rules by dependency-cruiser
 * (.dependency-cruiser.cjs), "no SQL outside repos" by ESLint (eslint.config.js). These tests
 * plant a violation of each rule in a small fixture and expect the rule to catch it, so a rule
 * that silently stopped matching (a path pattern that no longer fits the tree) fails here. That
 * the code base keeps them is `npm run lint`'s job.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseOptions, type IForbiddenRuleType } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
  forbidden: IForbiddenRuleType[];
  options: ICruiseOptions;
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Stand-ins for the packages the rules name, so fixtures resolve them as the real tree does. */
const PACKAGES: Record<string, string> = {
  'node_modules/kysely/package.json': '{ "name": "kysely", "main": "index.js" }',
  'node_modules/kysely/index.js': 'export const sql = 1;\n',
  'node_modules/fastify/package.json': '{ "name": "fastify", "main": "fastify.js" }',
  'node_modules/fastify/fastify.js': 'export default 1;\n',
};

/** The rules a tree of `files` (path → source) breaks, as `rule: from → to`. */
async function importViolations(files: Record<string, string>): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-arch-'));
  dirs.push(dir);
  for (const [file, source] of Object.entries({ ...PACKAGES, ...files })) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  const { tsConfig: _projectTsConfig, ...options } = config.options;
  const result = await cruise(['src'], { ...options, baseDir: dir, validate: true, ruleSet: { forbidden: config.forbidden } });
  if (typeof result.output === 'string') throw new Error('expected a structured result');
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

const exporting = (name: string) => `export const ${name} = 1;\n`;
const importing = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;
const importingType = (from: string) => `import type { X } from '${from}';\nexport type Y = X;\n`;

describe('import rules', () => {
  it('a route, a view or an HTTP helper may not import a repo or the database', async () => {
    const violations = await importViolations({
      'src/features/a/routes.ts': importing('./repo.js'),
      'src/features/a/recorder-routes.ts': importing('../../db/index.js'),
      'src/features/a/views.ts': importing('./repo.js'),
      'src/features/dashboard/http.ts': importing('../../jobs/repo.js'),
      'src/features/a/repo.ts': exporting('x'),
      'src/jobs/repo.ts': exporting('x'),
      'src/db/index.ts': exporting('x'),
    });
    expect(violations.sort()).toEqual([
      'routes-and-views-call-services: src/features/a/recorder-routes.ts → src/db/index.ts',
      'routes-and-views-call-services: src/features/a/routes.ts → src/features/a/repo.ts',
      'routes-and-views-call-services: src/features/a/views.ts → src/features/a/repo.ts',
      'routes-and-views-call-services: src/features/dashboard/http.ts → src/jobs/repo.ts',
    ]);
  });

  it("only repos and src/db import the kysely runtime or src/db's query helpers; types are free", async () => {
    const violations = await importViolations({
      // The planted violations: raw `sql` in a feature helper, a service and shared code.
      'src/features/agent-api/sweep.ts': importing('kysely'),
      'src/features/agent-api/service.ts': importing('../../db/lease-claim.js'),
      'src/jobs/queue.ts': importing('../db/keyset.js'),
      // Allowed: the repos, the database layer, types anywhere outside routes and views, and
      // src/db's other modules (transactions, error classification).
      'src/features/agent-api/repo.ts': `import { sql } from 'kysely';\nimport { claimWithLease } from '../../db/lease-claim.js';\nexport const y = [sql, claimWithLease];\n`,
      'src/jobs/repo.ts': importing('kysely'),
      'src/features/webhooks/service.ts': `import type { Kysely } from 'kysely';\nimport { withTransaction } from '../../db/transaction.js';\nexport const y = (k: Kysely) => [k, withTransaction];\n`,
      'src/db/lease-claim.ts': `import { sql } from 'kysely';\nexport const x = sql;\nexport const claimWithLease = sql;\n`,
      'src/db/keyset.ts': exporting('x'),
      'src/db/transaction.ts': exporting('withTransaction'),
    });
    expect(violations.sort()).toEqual([
      'sql-only-in-repos: src/features/agent-api/service.ts → src/db/lease-claim.ts',
      'sql-only-in-repos: src/features/agent-api/sweep.ts → node_modules/kysely/index.js',
      'sql-only-in-repos: src/jobs/queue.ts → src/db/keyset.ts',
    ]);
  });

  it('only routes, views and the listed HTTP helpers see Fastify, even as types', async () => {
    const violations = await importViolations({
      // The planted violations: a service, a repo, a job, schemas and a helper importing Fastify.
      'src/features/webhooks/service.ts': importingType('fastify'),
      'src/features/webhooks/repo.ts': importingType('fastify'),
      'src/features/webhooks/jobs.ts': importing('fastify'),
      'src/features/webhooks/schemas.ts': importingType('fastify'),
      'src/features/webhooks/delivery.ts': importingType('fastify'),
      'src/features/users/import-service.ts': importingType('fastify'),
      // Allowed.
      'src/features/webhooks/routes.ts': importing('fastify'),
      'src/features/recordings/recorder-routes.ts': importing('fastify'),
      'src/features/docs/views.ts': importingType('fastify'),
      'src/features/dashboard/http.ts': importingType('fastify'),
      'src/features/dashboard/access.ts': importingType('fastify'),
    });
    expect(violations.sort()).toEqual([
      'fastify-only-in-routes: src/features/users/import-service.ts → node_modules/fastify/fastify.js',
      'fastify-only-in-routes: src/features/webhooks/delivery.ts → node_modules/fastify/fastify.js',
      'fastify-only-in-routes: src/features/webhooks/jobs.ts → node_modules/fastify/fastify.js',
      'fastify-only-in-routes: src/features/webhooks/repo.ts → node_modules/fastify/fastify.js',
      'fastify-only-in-routes: src/features/webhooks/schemas.ts → node_modules/fastify/fastify.js',
      'fastify-only-in-routes: src/features/webhooks/service.ts → node_modules/fastify/fastify.js',
    ]);
  });

  it('every HTTP helper the rules list exists, so the list cannot outlive its files', () => {
    const rule = config.forbidden.find((r) => r.name === 'fastify-only-in-routes');
    const listed = [rule?.from.pathNot ?? []]
      .flat()
      .filter((pattern) => /^\^src\/[\w/-]+\\\.ts\$$/.test(pattern))
      .map((pattern) => pattern.slice(1, -1).replace('\\.', '.'));
    expect(listed.length).toBeGreaterThan(0);
    for (const file of listed) expect(fs.existsSync(file), file).toBe(true);
  });

  it("a feature may not import another feature's routes, but may import its own", async () => {
    const violations = await importViolations({
      'src/features/mcp/service.ts': importing('../play-links/public-routes.js'),
      'src/features/erasure/gone.ts': importing('../play-links/routes.js'),
      'src/features/play-links/routes.ts': importing('./public-routes.js'),
      'src/features/play-links/public-routes.ts': exporting('x'),
    });
    expect(violations.sort()).toEqual([
      'no-other-feature-routes: src/features/erasure/gone.ts → src/features/play-links/routes.ts',
      'no-other-feature-routes: src/features/mcp/service.ts → src/features/play-links/public-routes.ts',
    ]);
  });

  it("a feature may not import another feature's repo, but may import its own and the other's service", async () => {
    const violations = await importViolations({
      'src/features/users/service.ts': `import { x } from '../accounts/repo.js';\nimport { z } from '../accounts/service.js';\nimport { w } from './repo.js';\nexport const y = [x, z, w];\n`,
      'src/features/users/repo.ts': exporting('w'),
      'src/features/accounts/repo.ts': exporting('x'),
      'src/features/accounts/service.ts': exporting('z'),
    });
    expect(violations).toEqual(['no-other-feature-repo: src/features/users/service.ts → src/features/accounts/repo.ts']);
  });

  it('shared code and adapters may not import a feature; the jobs registry may', async () => {
    const violations = await importViolations({
      'src/lib/clock.ts': importing('../features/a/service.js'),
      'src/blobs/disk.ts': importing('../features/a/service.js'),
      'src/jobs/registry.ts': importing('../features/a/service.js'),
      'src/features/a/service.ts': exporting('x'),
    });
    expect(violations.sort()).toEqual([
      'shared-code-knows-no-feature: src/blobs/disk.ts → src/features/a/service.ts',
      'shared-code-knows-no-feature: src/lib/clock.ts → src/features/a/service.ts',
    ]);
  });

  it('import cycles are refused, unless only `import type` closes them', async () => {
    const cyclic = await importViolations({
      'src/features/a/service.ts': `import { b } from '../b/service.js';\nexport const a = () => b;\n`,
      'src/features/b/service.ts': `import { a } from '../a/service.js';\nexport const b = () => a;\n`,
    });
    expect(cyclic.some((v) => v.startsWith('no-cycles:'))).toBe(true);
    const typeOnly = await importViolations({
      'src/features/a/service.ts': `import { b } from '../b/service.js';\nexport interface A { n: number }\nexport const a = b;\n`,
      'src/features/b/service.ts': `import type { A } from '../a/service.js';\nexport const b = (x: A) => x.n;\n`,
    });
    expect(typeOnly).toEqual([]);
  });
});

describe('query rule', () => {
  // The project's own ESLint configuration, without type information: the rule under test is
  // syntax only, and building a TypeScript program for each snippet took most of a minute.
  const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
  const queryFindings = async (filePath: string, code: string) =>
    ((await eslint.lintText(code, { filePath }))[0]?.messages ?? [])
      .filter((m) => m.ruleId === 'no-restricted-syntax')
      .map((m) => m.line);
  const builder = `export const f = (db: { selectFrom(t: string): unknown }) => db.selectFrom('webhook_deliveries');\n`;
  const rawSql = `declare const sql: { raw(s: string): unknown };\nexport const f = () => sql\`delete from entity_payment_requests\`;\nexport const g = () => sql.raw('select 1');\n`;

  it('a query builder or the sql tag outside a repo is refused, in every role', async () => {
    // The planted violations: SQL in the delivery engine, raw sql in the entities' sweep.
    expect(await queryFindings('src/features/webhooks/delivery.ts', builder)).toEqual([1]);
    expect(await queryFindings('src/features/agent-api/sweep.ts', rawSql)).toEqual([2, 3]);
    for (const file of [
      'src/features/users/service.ts',
      'src/features/users/import-service.ts',
      'src/features/users/routes.ts',
      'src/features/recordings/recorder-routes.ts',
      'src/features/webhooks/jobs.ts',
      'src/features/docs/views.ts',
      'src/jobs/queue.ts',
      'src/integrations/payments/sandbox.ts',
    ]) {
      expect(await queryFindings(file, builder), file).toEqual([1]);
      expect(await queryFindings(file, rawSql), file).toEqual([2, 3]);
    }
  });

  it('repos and the database layer write SQL', async () => {
    for (const file of ['src/features/users/repo.ts', 'src/jobs/repo.ts', 'src/db/lease-claim.ts']) {
      expect(await queryFindings(file, builder), file).toEqual([]);
      expect(await queryFindings(file, rawSql), file).toEqual([]);
    }
  });
});

describe('file size rule', () => {
  const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
  const sizeFindings = async (filePath: string, lines: number) =>
    ((await eslint.lintText('export const x = 1;\n'.repeat(lines), { filePath }))[0]?.messages ?? []).filter(
      (m) => m.ruleId === 'max-lines',
    ).length;

  it('a source file over 400 lines is refused; tests and migrations are exempt', async () => {
    expect(await sizeFindings('src/features/users/service.ts', 400)).toBe(0);
    expect(await sizeFindings('src/features/users/service.ts', 401)).toBe(1);
    expect(await sizeFindings('src/lib/anything.ts', 401)).toBe(1);
    expect(await sizeFindings('src/features/users/service.test.ts', 900)).toBe(0);
    expect(await sizeFindings('src/db/migrations/0001_initial.ts', 900)).toBe(0);
  });
});
