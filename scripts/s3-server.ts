/**
 * A local S3-compatible server (s3rver, a devDependency) for CI and local testing of
 * BLOB_STORE=s3. Runs in the foreground until SIGTERM/SIGINT; start it in the background:
 *
 *   npx tsx scripts/s3-server.ts &          # listens on 127.0.0.1:4569, bucket voicename-test
 *   export S3_TEST_ENDPOINT=http://127.0.0.1:4569
 *
 * Settings: S3_SERVER_PORT (4569), S3_SERVER_DIR (a temp dir), S3_SERVER_BUCKET (voicename-test).
 * Credentials are s3rver's fixed pair: S3RVER / S3RVER. Prints "ready <endpoint>" when listening.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

const port = Number(process.env.S3_SERVER_PORT ?? 4569);
const bucket = process.env.S3_SERVER_BUCKET ?? 'voicename-test';
const directory = process.env.S3_SERVER_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-s3-'));
fs.mkdirSync(directory, { recursive: true });

const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
const address = await server.run();
console.log(`ready http://127.0.0.1:${address.port} bucket=${bucket} dir=${directory}`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
