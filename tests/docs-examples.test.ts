/**
 * The guides' examples, run as written against a real server, so a wrong example fails CI.
 *
 * The convention (also in docs/README.md): every fenced block whose info string starts with `sh`,
 * `bash` or `shell` runs, and so does every `ts` block, unless the info string also says `no-run`
 * (```sh no-run): fragments, placeholders, other hosts. One guide's blocks run in order in one
 * bash process (`set -euo pipefail`), so a block may use the shell variables of the blocks before
 * it; `ts` blocks run there too, as `node --import tsx <block>.ts`, and see the exported variables
 * (`@voicename/sdk` resolves to packages/sdk/src through tsconfig.json's `paths`, so SDK examples
 * run against the checkout's SDK, built or not).
 * Each guide starts with a fresh account: `$API_KEY` (its key), `$BASE_URL` (the server) and
 * `$WEBHOOK_RECEIVER_PORT` (a free port for the guide's webhook receiver) are set instead of the
 * guide's `env` blocks, and the literal `http://localhost:3000` of the guides is this test's server.
 * The working directory is a new directory under the checkout's `.tmp/` (so
 * `npm run --silent cli -- …` finds the project) that holds `examples/name.wav` as the checkout
 * does. Every `curl` must fail on an HTTP error (`-f`, `--fail`, `--fail-with-body`) or print the
 * status for the example to check (`-w '%{http_code}'`).
 * tests/docs-run.test.ts runs the README, the quick start and the webhooks guide again as a new
 * user would: the real `npm start`, no rewriting.
 * docs/deploy.md is not run here: tests/deploy-doc.test.ts runs it with a production server, and
 * tests/production-install.test.ts its build and production install.
 * Running is not type-checking (tsx strips the types): the runnable `ts` blocks of every guide and
 * of README.md are also compiled, as one TypeScript program with the root tsconfig.json (strict,
 * `paths` for `@voicename/sdk` and `voicename/mpp-sandbox`), and a type error fails with its
 * guide's file:line.
 *
 * bash and curl are the reader's tools, not programs under test: like deploy-doc.test.ts, the
 * pass that hides the system's programs (VOICENAME_HIDE_SYSTEM_BINARIES) gets the system
 * directories back on PATH for them. Without bash or curl on the machine the file is skipped.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../src/lib/executables.js';
import { freePort, startTestServer, type TestApp } from './helpers/app.js';
import { type Block, pythonBlocks, runnableBlocks } from './helpers/docs-blocks.js';

const DOCS = 'docs';
const NOT_HERE = new Set(['deploy.md', 'README.md']);

/** `curl` commands (continuation lines joined) that would not fail on an HTTP error. */
export function curlsWithoutFail(body: string): string[] {
  const commands = body.replace(/\\\n/g, ' ').split('\n');
  return commands
    .flatMap((line) => line.replace(/#.*$/, '').split(/\||;|&&/))
    .filter((command) => /(^|\s|\$\()curl\s/.test(command))
    .filter((command) => !/\s(-[a-zA-Z]*f[a-zA-Z]*|--fail|--fail-with-body)(\s|$)/.test(command))
    .filter((command) => !/%\{(http_code|response_code)\}/.test(command));
}

const guides = fs
  .readdirSync(DOCS)
  .filter((file) => file.endsWith('.md') && !NOT_HERE.has(file))
  .sort()
  .map((file) => ({ file, blocks: runnableBlocks(fs.readFileSync(path.join(DOCS, file), 'utf8')) }))
  .filter((guide) => guide.blocks.length > 0);

// The reader's shell and curl, even where the test run hides the system's programs.
const PATH = [process.env.PATH ?? '', '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter);
const bash = findOnPath('bash', PATH);
const curl = findOnPath('curl', PATH);
const missing = !bash || !curl ? `no ${bash ? 'curl' : 'bash'} on this machine` : null;

let t: TestApp & { url: string };
const root = process.cwd();
const workDirs: string[] = [];

beforeAll(async () => {
  // Webhooks to the guides' local receiver (plain http on loopback) are allowed, as in local development.
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await t?.close();
  for (const dir of workDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function rewrite(text: string): string {
  return text.replaceAll('http://localhost:3000', t.url);
}

/** One guide's blocks as one bash script; each block announces itself on stderr, so a failure names its block. */
function script(file: string, blocks: Block[], dir: string): string {
  const parts = ['set -euo pipefail'];
  blocks.forEach((block, i) => {
    parts.push(`echo "### ${file}:${block.line}" >&2`);
    if (block.kind === 'sh') {
      parts.push(rewrite(block.body));
    } else {
      const source = path.join(dir, `block-${i + 1}.ts`);
      fs.writeFileSync(source, rewrite(block.body));
      parts.push(`node --import tsx ${JSON.stringify(source)}`);
    }
  });
  return `${parts.join('\n')}\n`;
}

/** Runs a script in its own process group, then ends the group: a receiver a failed guide left running too. */
function run(source: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bash as string, ['-c', source], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {
        // The group has ended already.
      }
      resolve({ code, out, err });
    });
  });
}

describe.skipIf(missing !== null)(`the guides' examples run as written${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('finds the quick start among the guides with examples', () => {
    expect(guides.map((g) => g.file)).toContain('quick-start.md');
  });

  it.each(guides.map((g) => [g.file, g] as const))(
    '%s',
    async (_file, guide) => {
      for (const block of guide.blocks.filter((b) => b.kind === 'sh')) {
        expect(curlsWithoutFail(block.body), `${guide.file}:${block.line}: curl must fail on HTTP errors`).toEqual([]);
      }
      fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
      const dir = fs.mkdtempSync(path.join(root, '.tmp', `docs-examples-${path.basename(guide.file, '.md')}-`));
      workDirs.push(dir);
      fs.mkdirSync(path.join(dir, 'examples'));
      fs.copyFileSync(path.join(root, 'examples', 'name.wav'), path.join(dir, 'examples', 'name.wav'));
      const { key } = await t.newAccount();
      const receiverPort = String(await freePort());
      const env = t.childEnv({ PATH, API_KEY: key, BASE_URL: t.url, WEBHOOK_RECEIVER_PORT: receiverPort, LOG_LEVEL: 'silent' });
      const result = await run(script(guide.file, guide.blocks, dir), dir, env);
      const failedAt = result.err.match(/### (\S+)\n(?![\s\S]*### )/)?.[1] ?? guide.file;
      expect(result.code, `${failedAt} failed:\n${result.err}\n--- stdout:\n${result.out}`).toBe(0);
    },
    180_000,
  );
});

/** Where a block's file came from, to report type errors at the guide's own line. */
interface Origin {
  file: string;
  line: number;
}

/**
 * Type-checks TypeScript blocks as one program with the root tsconfig's options. Each block is
 * its own module (a .ts file under the checkout's .tmp/, where `"type": "module"` applies), so
 * blocks do not share names. Returns `file:line: message` for each error in a block.
 */
export function typeErrors(blocks: { origin: Origin; body: string }[]): string[] {
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, '.tmp', 'docs-typecheck-'));
  try {
    const origins = new Map<string, Origin>();
    blocks.forEach(({ origin, body }, i) => {
      const file = path.join(dir, `${path.basename(origin.file, '.md')}-${i + 1}.ts`);
      fs.writeFileSync(file, body);
      origins.set(path.resolve(file), origin);
    });
    const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
    const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
    const program = ts.createProgram([...origins.keys()], { ...options, noEmit: true });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => !d.file || origins.has(path.resolve(d.file.fileName)))
      .map((d) => {
        const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        if (!d.file || d.start === undefined) return message;
        const origin = origins.get(path.resolve(d.file.fileName)) as Origin;
        // Line 0 of a block is the line after its opening fence.
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return `${origin.file}:${origin.line + 1 + line}: TS${d.code} ${message}`;
      });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("the guides' TypeScript examples typecheck", () => {
  it('every runnable ts block of docs/*.md and README.md, as one program', () => {
    const files = [
      ...fs
        .readdirSync(DOCS)
        .filter((file) => file.endsWith('.md') && file !== 'README.md')
        .map((file) => path.join(DOCS, file)),
      'README.md',
    ];
    const blocks = files.flatMap((file) =>
      runnableBlocks(fs.readFileSync(file, 'utf8'))
        .filter((block) => block.kind === 'ts')
        .map((block) => ({ origin: { file, line: block.line }, body: block.body })),
    );
    expect(blocks.length).toBeGreaterThan(0);
    expect(typeErrors(blocks)).toEqual([]);
  }, 120_000);
});

describe('the runner itself', () => {
  it('runs sh, bash and ts blocks unless marked no-run or env, and finds blocks inside lists', () => {
    const blocks = runnableBlocks(
      [
        ...['```sh', 'a', '```', '```bash no-run', 'b', '```', '```sh env', 'export X=1', '```'],
        ...['- item', '', '  ```ts', '  c', '  ```', '```json', '{}', '```'],
      ].join('\n'),
    );
    expect(blocks.map((b) => [b.kind, b.body])).toEqual([
      ['sh', 'a'],
      ['ts', 'c'],
    ]);
  });

  it('leaves python blocks to tests/python-client.test.ts, which runs them unless marked no-run', () => {
    const markdown = ['```python', 'a', '```', '```python no-run', 'b', '```', '- item', '', '  ```py', '  c', '  ```'].join(
      '\n',
    );
    expect(runnableBlocks(markdown)).toEqual([]);
    expect(pythonBlocks(markdown).map((b) => [b.kind, b.body])).toEqual([
      ['python', 'a'],
      ['python', 'c'],
    ]);
  });

  it('insists that curl fails on HTTP errors', () => {
    expect(curlsWithoutFail('curl -fsS "$BASE_URL/x"\nX=$(curl --fail -s y | json id)')).toEqual([]);
    expect(curlsWithoutFail("curl -s -o /dev/null -w '%{http_code}' x")).toEqual([]);
    expect(curlsWithoutFail('curl -s "$BASE_URL/x" \\\n  -H "A: b"')).toHaveLength(1);
  });

  it('reports type errors at the line of the guide', () => {
    const errors = typeErrors([
      { origin: { file: 'docs/x.md', line: 10 }, body: "export const ok = 1;\nexport const n: number = 'one';\n" },
    ]);
    expect(errors).toEqual([expect.stringMatching(/^docs\/x\.md:12: TS2322 /)]);
  }, 60_000);
});
