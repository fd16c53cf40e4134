/**
 * The webhook benchmark's baseline, in its own process: the least a sender must do per delivery,
 * with no database. SENDER_TOTAL signed POSTs spread over the receivers in SENDER_URLS (JSON),
 * SENDER_CONCURRENCY at once overall and at most SENDER_PER_RECEIVER at once to one receiver, over
 * undici keep-alive pools, each body signed as a delivery is (signatureHeaders: the Standard
 * Webhooks headers and X-Service-Signature). Waits for a line on stdin before it starts, and for
 * stdin to close once every POST has been answered, so the bench can read its CPU time throughout.
 */
import readline from 'node:readline';
import { Agent, request } from 'undici';
import { signatureHeaders } from '../src/features/webhooks/signing.js';
import { eventData } from './webhook-data.js';

const urls = JSON.parse(process.env.SENDER_URLS ?? '[]') as string[];
const total = Number(process.env.SENDER_TOTAL);
const concurrency = Math.min(Number(process.env.SENDER_CONCURRENCY), urls.length * Number(process.env.SENDER_PER_RECEIVER));
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const agents = urls.map(() => new Agent({ connections: 64, keepAliveTimeout: 10_000, pipelining: 1 }));

const lines = readline.createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async (_, slot) => {
    // Slot s always sends to receiver s mod n: at most ceil(concurrency / n) per receiver.
    const receiver = slot % urls.length;
    while (next < total) {
      const i = next++;
      const id = `msg_${i}`;
      // The shape and size of the app's bodies (eventBody in deliveries-service.ts, the bench's event data).
      const body = JSON.stringify({ event: 'recording.completed', timestamp: new Date().toISOString(), data: eventData(i) });
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'voicename-webhooks/1',
        'x-service-event': 'recording.completed',
        'x-service-delivery-attempt': '1',
        ...signatureHeaders({ current: secret, previous: null }, { id, timestampSeconds: Math.floor(Date.now() / 1000), body }),
      };
      const response = await request(urls[receiver]!, { method: 'POST', headers, body, dispatcher: agents[receiver] });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
    }
  }),
);
// Alive until the bench has read its CPU time: it closes stdin then.
await new Promise((resolve) => lines.once('close', resolve));
process.exit(0);
