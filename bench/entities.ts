/**
 * The agent API's first paid request after a restart against a warm one (npm run bench -- entities).
 * 1. The built server (`benchApp`: dist/main.js, SQLite, sandbox payments, WARM_UP=true), restarted
 *    BENCH_RESTARTS times (default 5). After each start it waits until `/readyz` says `warm` (the
 *    background warm-up has finished, however long the machine's load makes it; the time is
 *    printed), then the paid flow runs WARM_ROUNDS + 1 times: unpaid POST → 402 (timed), the sandbox confirmation (not
 *    timed), the paid POST → 200 (timed: speech, MP3, rows). The first flow is "first", the median of
 *    the others "warm"; the table gives the medians over the restarts, their ratio, the server's
 *    CPU time per request (/proc/<pid>/stat) and the 1-minute load average. BENCH_APP_ROOT benches
 *    another checkout's built server with this script (the "before" figure).
 * 2. Speech synthesis per name (eSpeak NG WASM in a worker thread + MP3 encoding): cold (first call
 *    of a new worker), second call, and warm (median of 5 after 5 warm-up calls).
 * 3. The paid POST by way of paying, on one warm server with x402 configured: the reference flow
 *    (`mpp; reference=`, sandbox) against x402 (the official client signing the offer, a local
 *    facilitator on loopback verifying and settling: tests/helpers/x402-facilitator.ts), PAID_ROUNDS
 *    interleaved flows each; the medians of the paid POST and its server CPU time.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { EspeakSynthesizer } from '../src/speech/espeak.js';
import { startFacilitator } from '../tests/helpers/x402-facilitator.js';
import { benchApp, cpuMsOf, loadAverage, median } from './lib.js';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 5);
/** Longest wait for the warm-up (a cold eSpeak NG under heavy load can take tens of seconds). */
const WARM_TIMEOUT_MS = 120_000;
const WARM_ROUNDS = 5;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

interface Flow {
  unpaidMs: number;
  paidMs: number;
  /** Server CPU time of the paid request. */
  paidCpuMs: number;
}

/** One paid flow against `url`: the 402, the confirmation, the paid retry. */
async function paidFlow(url: string, serverPid: number, n: number): Promise<Flow> {
  const body = {
    name: `Bench Agent ${String.fromCharCode(65 + (n % 26))}${n} ${Date.now()}`,
    entity_type: 'ai_agent',
    description: 'A benchmark agent that exists to be timed.',
    operator: 'Bench Co',
    visibility: 'unlisted',
  };
  const post = (headers: Record<string, string> = {}) =>
    fetch(`${url}/api/entities/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const [first, unpaidMs] = await timed(() => post().then(async (r) => ({ status: r.status, json: await r.json() })));
  if (first.status !== 402) throw new Error(`unpaid request answered ${first.status}`);
  const instruction = (first.json as { mpp_instruction: { reference: string; address: string; confirm_url: string } })
    .mpp_instruction;
  await fetch(instruction.confirm_url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_secret: instruction.address }),
  });
  const cpuBefore = cpuMsOf(serverPid);
  const [paid, paidMs] = await timed(() =>
    post({ 'payment-authorization': `mpp; reference="${instruction.reference}"` }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    })),
  );
  if (paid.status !== 200) throw new Error(`paid retry answered ${paid.status}: ${paid.text}`);
  return { unpaidMs, paidMs, paidCpuMs: cpuMsOf(serverPid) - cpuBefore };
}

let warmPaid = 0;

/** Waits until the server's `/readyz` says its background warm-up has finished; the wait in ms. */
async function untilWarm(url: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < WARM_TIMEOUT_MS) {
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { warm?: boolean };
    if (ready.warm === true) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} did not finish warming up within ${WARM_TIMEOUT_MS} ms`);
}

async function firstAfterRestart() {
  const first: Flow[] = [];
  const warm: Flow[] = [];
  const loads: number[] = [];
  for (let restart = 0; restart < RESTARTS; restart++) {
    const app = await benchApp(async () => undefined, { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000', WARM_UP: 'true' });
    try {
      const warmUpMs = await untilWarm(app.url);
      loads.push(loadAverage());
      first.push(await paidFlow(app.url, app.serverPid, 0));
      const rounds: Flow[] = [];
      for (let n = 1; n <= WARM_ROUNDS; n++) rounds.push(await paidFlow(app.url, app.serverPid, n));
      warm.push({
        unpaidMs: median(rounds.map((r) => r.unpaidMs)),
        paidMs: median(rounds.map((r) => r.paidMs)),
        paidCpuMs: median(rounds.map((r) => r.paidCpuMs)),
      });
      const last = first.at(-1) as Flow;
      console.log(
        `  restart ${restart + 1}: first 402 ${ms(last.unpaidMs)}, first paid ${ms(last.paidMs)} (cpu ${ms(last.paidCpuMs)}), ` +
          `warm paid ${ms(warm.at(-1)?.paidMs ?? 0)}, warm-up ${ms(warmUpMs)}, load ${loadAverage().toFixed(2)}`,
      );
    } finally {
      await app.close();
    }
  }
  const row = (label: string, pick: (flow: Flow) => number) => {
    const f = median(first.map(pick));
    const w = median(warm.map(pick));
    console.log(`| ${label} | ${f.toFixed(1)} | ${w.toFixed(1)} | ${(f / w).toFixed(2)} |`);
    return w;
  };
  console.log(
    `\nFirst paid request after a restart vs warm: medians of ${RESTARTS} restarts (warm: median of ${WARM_ROUNDS} per restart); ` +
      `built server, SQLite, sandbox; node ${process.version}; load average ${median(loads).toFixed(2)}` +
      (process.env.BENCH_APP_ROOT ? `; server from ${process.env.BENCH_APP_ROOT}` : ''),
  );
  console.log('| request | first ms | warm ms | first / warm |\n|---|---|---|---|');
  row('unpaid POST → 402', (flow) => flow.unpaidMs);
  warmPaid = row('paid POST → 200 (speech, MP3, rows)', (flow) => flow.paidMs);
  row('server CPU of the paid POST (ms)', (flow) => flow.paidCpuMs);
}

async function speech(paidMedian: number) {
  const names = ['Ada', 'Zoë Concierge', 'Professor Bartholomew Quackenbush the Third'];
  console.log('Speech synthesis per name (eSpeak NG WASM in a worker thread + MP3):');
  for (const name of names) {
    const synthesizer = new EspeakSynthesizer();
    const [first, cold] = await timed(() => synthesizer.synthesize({ text: name }));
    // The WASM engine and lamejs get faster over the first calls (JIT tiers): measure after 5 more.
    const [, second] = await timed(() => synthesizer.synthesize({ text: name }));
    for (let i = 0; i < 4; i++) await synthesizer.synthesize({ text: name });
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push((await timed(() => synthesizer.synthesize({ text: name })))[1]);
    await synthesizer.close();
    const w = median(warm);
    console.log(
      `  ${JSON.stringify(name).padEnd(46)} cold ${ms(cold).padStart(9)}  2nd ${ms(second).padStart(8)}  warm ${ms(w).padStart(8)}  audio ${first.durationMs} ms  ` +
        `(warm = ${((w / paidMedian) * 100).toFixed(0)}% of the paid path; cold/warm ${(cold / w).toFixed(1)}x)`,
    );
  }
}

/** One x402-paid flow: the client pays the 402 itself; the POST carrying PAYMENT-SIGNATURE is timed. */
async function x402Flow(url: string, serverPid: number, n: number): Promise<Flow> {
  const timings: { unpaidMs: number; paidMs: number; paidCpuMs: number } = { unpaidMs: 0, paidMs: 0, paidCpuMs: 0 };
  const timedFetch: typeof fetch = async (input, init) => {
    const paying =
      new Headers(init?.headers).has('payment-signature') || (input instanceof Request && input.headers.has('payment-signature'));
    const cpuBefore = cpuMsOf(serverPid);
    const [response, took] = await timed(async () => {
      const r = await fetch(input, init);
      return new Response(await r.arrayBuffer(), { status: r.status, headers: r.headers });
    });
    if (paying) Object.assign(timings, { paidMs: took, paidCpuMs: cpuMsOf(serverPid) - cpuBefore });
    else timings.unpaidMs = took;
    return response;
  };
  const client = new x402Client().register('eip155:84532', new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
  const response = await wrapFetchWithPayment(timedFetch, client)(`${url}/api/entities/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `Bench Courier ${String.fromCharCode(65 + (n % 26))}${n} ${Date.now()}`,
      entity_type: 'ai_agent',
      description: 'A benchmark agent that exists to be timed.',
      operator: 'Bench Co',
      visibility: 'unlisted',
    }),
  });
  if (response.status !== 200) throw new Error(`x402 paid retry answered ${response.status}: ${await response.text()}`);
  return timings;
}

const PAID_ROUNDS = Number(process.env.PAID_ROUNDS ?? 10);

async function paidPathByMethod() {
  const facilitator = await startFacilitator();
  const app = await benchApp(async () => undefined, {
    ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000',
    WARM_UP: 'true',
    X402_NETWORK: 'eip155:84532',
    X402_ALLOW_TEST_NETWORK: 'true',
    X402_ASSET: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    X402_PAY_TO: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
    X402_FACILITATOR_URL: facilitator.url,
    X402_AUD_RATE: '650000',
  });
  try {
    await untilWarm(app.url);
    // One of each first: the lazy imports of either path are not what is compared.
    await paidFlow(app.url, app.serverPid, 900);
    await x402Flow(app.url, app.serverPid, 901);
    const reference: Flow[] = [];
    const x402: Flow[] = [];
    for (let n = 0; n < PAID_ROUNDS; n++) {
      reference.push(await paidFlow(app.url, app.serverPid, 1000 + n));
      x402.push(await x402Flow(app.url, app.serverPid, 2000 + n));
    }
    console.log(
      `\nThe paid POST by way of paying: medians of ${PAID_ROUNDS} interleaved flows each on one warm built server (SQLite, ` +
        `sandbox; x402 against a local facilitator on loopback); node ${process.version}; load average ${loadAverage().toFixed(2)}`,
    );
    console.log('| method | unpaid POST → 402 ms | paid POST → 200 ms | server CPU of the paid POST ms |\n|---|---|---|---|');
    for (const [label, flows] of [
      ['reference (mpp; reference=, sandbox)', reference],
      ['x402 (PAYMENT-SIGNATURE: /verify, speech, /settle)', x402],
    ] as const) {
      const med = (pick: (flow: Flow) => number) => median(flows.map(pick)).toFixed(1);
      console.log(`| ${label} | ${med((f) => f.unpaidMs)} | ${med((f) => f.paidMs)} | ${med((f) => f.paidCpuMs)} |`);
    }
  } finally {
    await app.close();
    await facilitator.close();
  }
}

await firstAfterRestart();
await speech(warmPaid);
await paidPathByMethod();
