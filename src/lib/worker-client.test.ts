/**
 * `WorkerClient.warm`: a worker is warmed up once per start (a stopped worker is cold again, so
 * the next warm-up runs again), and a warm-up that fails leaves the error to the first request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerClient } from './worker-client.js';

/** A worker that answers each request with how many it has answered so far (its own count). */
const COUNTING_WORKER = new URL(
  `data:text/javascript,${encodeURIComponent(`
    import { parentPort } from 'node:worker_threads';
    let answered = 0;
    parentPort.on('message', (request) => {
      answered++;
      if (request.fail) parentPort.postMessage({ id: request.id, error: 'asked to fail' });
      else parentPort.postMessage({ id: request.id, answered });
    });
    parentPort.postMessage({ ready: true });
  `)}`,
);

let client: WorkerClient<{ fail?: boolean }, { answered: number }>;
afterEach(() => client.close());

describe('warming a worker up', () => {
  it('sends the warm-up requests once per started worker, before the first real one', async () => {
    client = new WorkerClient(COUNTING_WORKER, { name: 'counting', timeoutMs: 5_000 });
    await client.warm([{}, {}]);
    await client.warm([{}, {}]);
    // Two warm-up requests ran, and only once.
    expect((await client.request({})).answered).toBe(3);
    // A stopped worker (as the idle stop does) is cold again: the next warm-up runs in the new one.
    await client.close();
    await client.warm([{}, {}]);
    expect((await client.request({})).answered).toBe(3);
  });

  it('resolves when a warm-up request fails, and the worker still answers', async () => {
    client = new WorkerClient(COUNTING_WORKER, { name: 'counting', timeoutMs: 5_000 });
    await expect(client.warm([{ fail: true }])).resolves.toBeUndefined();
    expect((await client.request({})).answered).toBe(2);
  });
});
