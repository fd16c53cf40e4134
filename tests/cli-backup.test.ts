/**
 * `npm run --silent cli -- backup <file>`: a consistent copy of the live SQLite database, taken
 * while the service keeps writing, that a new server starts from (the restore of docs/deploy.md).
 * On PostgreSQL the command says to use pg_dump instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../src/db/migrate.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runCliCaptured } from './helpers/cli.js';
import { usingPostgres } from './helpers/database.js';

let t: TestApp;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-backup-'));
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('cli backup', () => {
  it.runIf(!usingPostgres())(
    'copies the live database while it is being written, and a server starts from the copy',
    async () => {
      const { key } = await t.newAccount('backup@example.com');
      const created = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2026' } });
      const id = created.json<{ id: string }>().id;
      // Writes keep coming while the backup runs.
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++)
          await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `During ${i}` } });
      })();
      const file = path.join(dir, 'voicename-backup.db');
      const result = await runCliCaptured(t.childEnv(), ['backup', file, '--json']);
      writing = false;
      await writer;
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ file, bytes: fs.statSync(file).size });
      expect(fs.existsSync(`${file}.partial`)).toBe(false);

      const copy = new SQLite(file, { readonly: true });
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.prepare('select name from collections where id = ?').get(id)).toEqual({ name: 'Class of 2026' });
      expect((copy.prepare('select count(*) as n from kysely_migration').get() as { n: number }).n).toBe(migrationNames().length);
      copy.close();

      // Restore: the copy as a new server's database (DATA_DIR/voicename.db), the same key works.
      const restoredDir = fs.mkdtempSync(path.join(dir, 'restored-'));
      fs.copyFileSync(file, path.join(restoredDir, 'voicename.db'));
      const restored = await runCliCaptured({ ...t.childEnv(), DATA_DIR: restoredDir, DATABASE_URL: '' }, [
        'keys',
        'list',
        '--account',
        'backup@example.com',
        '--json',
      ]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(JSON.parse(restored.stdout)).toHaveLength(1);
    },
  );

  it.runIf(usingPostgres())('on PostgreSQL, says to use pg_dump', async () => {
    const result = await runCliCaptured(t.childEnv(), ['backup', path.join(dir, 'x.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pg_dump');
  });

  it('needs a file', async () => {
    const result = await runCliCaptured(t.childEnv(), ['backup']);
    expect(result.code).toBe(2);
  });
});
