/**
 * A local x402 facilitator for the tests: the facilitator HTTP API (`POST /verify`,
 * `POST /settle`, `GET /supported`) for the `exact` scheme on EVM with EIP-3009
 * `transferWithAuthorization`, as the x402 v2 specification describes it. It checks what a real
 * facilitator checks before moving tokens (the payer's EIP-712 signature over the token's domain,
 * recipient, amount, validity window, an unused nonce) and "settles" by recording the nonce and
 * answering a transaction hash signed for by its own key. It can be taken down (`down = true`).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Hex, keccak256, toHex, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

interface Requirements {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name?: string; version?: string };
}
interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}
interface Body {
  x402Version: number;
  paymentPayload: { x402Version: number; accepted: Requirements; payload: { signature: Hex; authorization: Authorization } };
  paymentRequirements: Requirements;
}

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export interface LocalFacilitator {
  url: string;
  /** While true, every call answers 503 (the facilitator is down). */
  down: boolean;
  verifyCalls: number;
  settlements: { payer: string; amount: string; transaction: string; nonce: string }[];
  close(): Promise<void>;
}

export async function startFacilitator(): Promise<LocalFacilitator> {
  // The facilitator's own key: the account that would submit the transfers on chain.
  const submitter = privateKeyToAccount(generatePrivateKey());
  const used = new Set<string>();

  async function check(body: Body): Promise<{ isValid: boolean; invalidReason?: string; payer?: string }> {
    const { paymentPayload, paymentRequirements: req } = body;
    const { authorization, signature } = paymentPayload.payload;
    const payer = authorization.from;
    const refuse = (invalidReason: string) => ({ isValid: false, invalidReason, payer });
    if (body.x402Version !== 2 || paymentPayload.x402Version !== 2) return refuse('invalid_x402_version');
    if (req.scheme !== 'exact' || paymentPayload.accepted.scheme !== 'exact') return refuse('unsupported_scheme');
    if (JSON.stringify(paymentPayload.accepted) !== JSON.stringify(req)) return refuse('invalid_payment_requirements');
    if (authorization.to.toLowerCase() !== req.payTo.toLowerCase()) return refuse('invalid_exact_evm_payload_recipient_mismatch');
    if (BigInt(authorization.value) !== BigInt(req.amount)) return refuse('invalid_exact_evm_payload_authorization_value');
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (BigInt(authorization.validBefore) < now + 6n) return refuse('invalid_exact_evm_payload_authorization_valid_before');
    if (BigInt(authorization.validAfter) > now) return refuse('invalid_exact_evm_payload_authorization_valid_after');
    if (used.has(authorization.nonce)) return refuse('invalid_exact_evm_payload_authorization_nonce_used');
    const valid = await verifyTypedData({
      address: payer,
      domain: {
        name: req.extra.name ?? '',
        version: req.extra.version ?? '',
        chainId: Number(req.network.split(':')[1]),
        verifyingContract: req.asset as Hex,
      },
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.from,
        to: authorization.to,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce,
      },
      signature,
    }).catch(() => false);
    return valid ? { isValid: true, payer } : refuse('invalid_exact_evm_payload_signature');
  }

  const facilitator: LocalFacilitator = {
    url: '',
    down: false,
    verifyCalls: 0,
    settlements: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (facilitator.down) return answer(503, { error: 'facilitator down' });
      if (request.method === 'GET' && request.url === '/supported') {
        return answer(200, {
          kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
          extensions: [],
          signers: { 'eip155:*': [submitter.address] },
        });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      void (async () => {
        const verdict = await check(body);
        if (request.url === '/verify') {
          facilitator.verifyCalls++;
          return answer(200, verdict);
        }
        if (request.url === '/settle') {
          const network = body.paymentRequirements.network;
          if (!verdict.isValid) {
            return answer(400, {
              success: false,
              errorReason: verdict.invalidReason,
              transaction: '',
              network,
              payer: verdict.payer,
            });
          }
          const nonce = body.paymentPayload.payload.authorization.nonce;
          used.add(nonce);
          const transaction = keccak256(toHex(`${submitter.address}:${nonce}:${randomBytes(8).toString('hex')}`));
          facilitator.settlements.push({
            payer: verdict.payer ?? '',
            amount: body.paymentRequirements.amount,
            transaction,
            nonce,
          });
          return answer(200, { success: true, transaction, network, payer: verdict.payer });
        }
        return answer(404, { error: 'not found' });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  facilitator.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return facilitator;
}
