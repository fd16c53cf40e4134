/**
 * The architecture's rules are enforced by `npm run lint`: import rules by dependency-cruiser
 * (.dependency-cruiser.cjs), "no SQL outside repos" by ESLint (eslint.config.js). These tests
 * run the same rules on small fixtures that break each one, so a rule that silently stopped
 * matching (a path pattern that no longer fits the tree) fails here. That the code base keeps
 * them is `npm run lint`'s job.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseOptions, type IForbiddenRuleType } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
  forbidden: IForbiddenRuleType[];
  options: ICruiseOptions;
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The rules a tree of `files` (path → source) breaks, as `rule: from → to`. */
async function importViolations(files: Record<string, string>): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-arch-'));
  dirs.push(dir);
  for (const [file, source] of Object.entries(files)) {
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

describe('import rules', () => {
  it('a route or a view may not import a repo or the database', async () => {
    const violations = await importViolations({
      'src/features/a/routes.ts': importing('./repo.js'),
      'src/features/a/recorder-routes.ts': importing('../../db/index.js'),
      'src/features/a/views.ts': importing('./repo.js'),
      'src/features/a/repo.ts': exporting('x'),
      'src/db/index.ts': exporting('x'),
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        'routes-and-views-call-services: src/features/a/routes.ts → src/features/a/repo.ts',
        'routes-and-views-call-services: src/features/a/recorder-routes.ts → src/db/index.ts',
        'routes-and-views-call-services: src/features/a/views.ts → src/features/a/repo.ts',
      ]),
    );
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
  it('services and routes may not write SQL', async () => {
    const eslint = new ESLint({ cwd: process.cwd() });
    const lint = async (filePath: string, code: string) =>
      ((await eslint.lintText(code, { filePath }))[0]?.messages ?? []).map((m) => m.ruleId);
    const query =
      "import { sql } from 'kysely';\nexport const f = (db: { selectFrom(t: string): unknown }) => [db.selectFrom('users'), sql`select 1`];\n";
    expect(await lint('src/features/users/service.ts', query)).toContain('no-restricted-syntax');
    expect(await lint('src/features/users/routes.ts', query)).toContain('no-restricted-syntax');
    expect(await lint('src/features/users/repo.ts', query)).not.toContain('no-restricted-syntax');
  }, 60_000);
});
