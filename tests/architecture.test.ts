/**
 * The architecture's import rules are enforced by `npm run lint` (eslint.config.js). These tests
 * lint deliberate violations, placed where they would break a rule, so a rule that silently
 * stopped working (a glob that no longer matches, a resolver that finds nothing) fails here.
 * That the code base itself keeps them is `npm run lint`'s job.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The rule ids that `code` breaks if it lived at `filePath`. */
async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('layering rules', () => {
  it('a route may not import a repo, the database or kysely', { timeout: 60_000 }, async () => {
    for (const line of [
      "import { listLiveCollections } from './repo.js';",
      "import { openDb } from '../../db/index.js';",
      "import { sql } from 'kysely';",
    ]) {
      expect(
        await violations('src/features/collections/routes.ts', `${line}\nexport const x = [${line.split(' ')[2]}];\n`),
      ).toContain('import-x/no-restricted-paths');
    }
  });

  it("a feature may not import another feature's repo, but may import its own", async () => {
    const other = "import { findAccountById } from '../accounts/repo.js';\nexport const x = findAccountById;\n";
    expect(await violations('src/features/users/service.ts', other)).toContain('import-x/no-restricted-paths');
    const own = "import { listUsers } from './repo.js';\nexport const x = listUsers;\n";
    expect(await violations('src/features/users/service.ts', own)).not.toContain('import-x/no-restricted-paths');
  });

  it('shared code and adapters may not import a feature', async () => {
    const code =
      "import { requireLiveCollection } from '../features/collections/service.js';\nexport const x = requireLiveCollection;\n";
    expect(await violations('src/lib/clock.ts', code)).toContain('import-x/no-restricted-paths');
    expect(await violations('src/blobs/disk.ts', code)).toContain('import-x/no-restricted-paths');
  });

  it('services may not write SQL', async () => {
    const code = 'export const f = (db: any) => db.selectFrom("users").selectAll().execute();\n';
    expect(await violations('src/features/users/service.ts', code)).toContain('no-restricted-syntax');
  });

  it('import cycles are refused', async () => {
    // play-links/service imports collections/service; the reverse would close a cycle.
    const code = "import { rotatePlayLink } from '../play-links/service.js';\nexport const x = rotatePlayLink;\n";
    expect(await violations('src/features/collections/service.ts', code)).toContain('import-x/no-cycle');
  });
});
