/**
 * Entity generation benchmark (loopback only, bounded: about 20 s).
 *   npx tsx bench/entities.ts
 * 1. Server time of the paid path on the sandbox: median of 20 paid retries (402 → confirm → timed
 *    paid POST; the confirm call is not timed), against the unpaid 402 path and GET /healthz as
 *    baselines measured in the same run.
 * 2. Speech synthesis per name (eSpeak NG WASM in a worker thread + MP3 encoding): cold (first call
 *    of a new worker), second call, and warm (median of 5 after 5 warm-up calls).
 */
import { EspeakSynthesizer } from '../src/speech/espeak.js';
import { startTestServer } from '../tests/helpers/app.js';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

async function paidPath() {
  const server = await startTestServer({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' } });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/entities/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  try {
    // Warm-up: one full publish so the speech worker and connections are warm.
    const runs = 21;
    const health: number[] = [];
    const unpaid: number[] = [];
    const paid: number[] = [];
    const replay: number[] = [];
    for (let i = 0; i < runs; i++) {
      const body = {
        name: `Bench Agent ${String.fromCharCode(65 + (i % 26))}${i}`,
        entity_type: 'ai_agent',
        description: 'A benchmark agent that exists to be timed.',
        operator: 'Bench Co',
        visibility: 'unlisted',
      };
      const [, h] = await timed(() => fetch(`${server.url}/healthz`).then((r) => r.text()));
      const [first, u] = await timed(() => post(body).then((r) => r.json()));
      const instruction = first.mpp_instruction;
      await fetch(instruction.confirm_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_secret: instruction.address }),
      });
      const header = { 'payment-authorization': `mpp; reference="${instruction.reference}"` };
      const [res, p] = await timed(() => post(body, header).then(async (r) => ({ status: r.status, body: await r.text() })));
      if (res.status !== 200) throw new Error(`paid retry answered ${res.status}: ${res.body}`);
      const [, r] = await timed(() => post(body, header).then((x) => x.text()));
      if (i === 0) continue; // warm-up
      health.push(h);
      unpaid.push(u);
      paid.push(p);
      replay.push(r);
    }
    const base = median(health);
    console.log('Paid path on the sandbox (median of 20, loopback HTTP, SQLite):');
    console.log(`  GET /healthz (baseline)          ${ms(base)}`);
    console.log(`  unpaid POST → 402                ${ms(median(unpaid))}  (${(median(unpaid) / base).toFixed(1)}x baseline)`);
    console.log(`  paid POST → 200 (publish)        ${ms(median(paid))}  (${(median(paid) / base).toFixed(1)}x baseline)`);
    console.log(`  identical retry → 200 (replay)   ${ms(median(replay))}  (${(median(replay) / base).toFixed(1)}x baseline)`);
    return median(paid);
  } finally {
    await server.close();
  }
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

const paidMedian = await paidPath();
await speech(paidMedian);
