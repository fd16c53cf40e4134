/**
 * Publishes an agent profile paid with x402 v2, with the official client packages (`@x402/fetch`
 * and `@x402/evm`): one call, the 402's PAYMENT-REQUIRED offer is signed and the request repeated
 * with PAYMENT-SIGNATURE for you. The server must have X402_* configured.
 *
 *   X402_PRIVATE_KEY=0x… npx tsx examples/x402-pay.ts http://localhost:3000 "Nova Courier"
 *
 * The key is the payer's wallet (it must hold the offered token on the offered network). Exits 0
 * once the profile is published, 1 otherwise.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

const [site = 'http://localhost:3000', name = `Orbit Courier ${Date.now()}`] = process.argv.slice(2);
const key = process.env.X402_PRIVATE_KEY;
if (!key?.startsWith('0x')) {
  console.error('Set X402_PRIVATE_KEY to the paying wallet key (0x…)');
  process.exit(1);
}
const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(key as `0x${string}`)));
const fetchWithPayment = wrapFetchWithPayment(fetch, client);
const response = await fetchWithPayment(`${site}/api/entities/generate`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    name,
    entity_type: 'ai_agent',
    description: 'Carries parcels between the floors of Orbit HQ.',
    operator: 'Orbit Labs',
    visibility: 'public',
  }),
});
console.log(response.status, JSON.stringify(await response.json(), null, 2));
if (response.status !== 200) {
  console.error(`not published: ${site} answered ${response.status}`);
  process.exit(1);
}
console.log('settlement', decodePaymentResponseHeader(response.headers.get('payment-response') ?? ''));
