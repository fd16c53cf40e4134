/**
 * An S3-compatible endpoint for tests: S3_TEST_ENDPOINT when set (e.g. the server CI starts
 * with scripts/s3-server.ts), otherwise an in-process s3rver on a free loopback port. Each
 * call gets its own fresh bucket.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { randomToken } from '../../src/lib/ids.js';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  close(): Promise<void>;
}

export async function startTestS3(): Promise<TestS3> {
  const accessKeyId = process.env.S3_TEST_ACCESS_KEY_ID ?? 'S3RVER';
  const secretAccessKey = process.env.S3_TEST_SECRET_ACCESS_KEY ?? 'S3RVER';
  const region = process.env.S3_TEST_REGION ?? 'us-east-1';
  let endpoint = process.env.S3_TEST_ENDPOINT ?? '';
  let stop = async () => {};
  if (endpoint === '') {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-s3rver-'));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const address = await server.run();
    endpoint = `http://127.0.0.1:${address.port}`;
    stop = async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    };
  }
  const bucket = `voicename-test-${randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '0')}`;
  const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return { endpoint, bucket, accessKeyId, secretAccessKey, region, close: stop };
}
