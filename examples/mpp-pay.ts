/**
 * Publishes an agent profile through the standard Payment flow with the `mppx` client and the
 * sandbox method voicename ships: one call, the 402 is paid and retried for you.
 *
 *   npx tsx examples/mpp-pay.ts http://localhost:3000 "Orbit Concierge"
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
if (response.ok) console.log('receipt', Receipt.fromResponse(response));
