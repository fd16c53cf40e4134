/**
 * Publishes an agent profile through the standard Payment flow with the `mppx` client and the
 * sandbox method voicename ships: one call, the 402 is paid and retried for you.
 *
 *   npx tsx examples/mpp-pay.ts http://localhost:3000 "Nova Concierge"
 *
 * Exits 0 once the profile is published, 1 otherwise (an answer other than 200, or a payment that
 * failed: a declined card makes `mppx.fetch` throw).
 */
import { Receipt } from 'mppx';
import { Mppx } from 'mppx/client';
import { sandbox } from '../src/sdk/mpp-sandbox.js';

const [site = 'http://localhost:3000', name = `Orbit Concierge ${Date.now()}`] = process.argv.slice(2);
const mppx = Mppx.create({ methods: [sandbox()], polyfill: false });
const response = await mppx.fetch(`${site}/api/entities/generate`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    name,
    entity_type: 'digital_receptionist',
    description: 'Greets visitors and books rooms at Orbit HQ.',
    operator: 'Orbit Labs',
    visibility: 'public',
  }),
});
console.log(response.status, JSON.stringify(await response.json(), null, 2));
if (response.status !== 200) {
  // Not published (refused, not paid, a failure after payment): say so to the shell too.
  console.error(`not published: ${site} answered ${response.status}`);
  process.exit(1);
}
console.log('receipt', Receipt.fromResponse(response));
