/**
 * Operator command line: `npm run --silent cli -- <command>`.
 *   migrate
 *   keys create --account <email> [--name <name>] [--json]
 *   keys list --account <email> [--json]
 *   keys revoke <key-id>
 *   webhooks enable <webhook-id> [--json]
 *   x402 refunds [--json]
 *   x402 refunded <payment-request-id> --transaction <hash> [--json]
 *   backup <file> [--json]
 * Output meant for machines goes to stdout as JSON; messages for people go to stderr.
 * `runCli` is the whole program without the process around it, so tests call it in-process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { closeDeps, createDeps, type Deps } from './deps.js';
import { AppError } from './errors.js';
import { createApiKey, listApiKeys, revokeApiKey } from './features/api-keys/service.js';
import { listX402ManualRefunds, recordX402ManualRefund } from './features/agent-api/x402-settlement.js';
import { enableWebhook } from './features/webhooks/service.js';

const USAGE = `Usage: npm run --silent cli -- <command>

Commands:
  migrate                                       Apply database migrations.
  keys create --account <email> [--name <n>] [--json]
                                                Create an API key (the account is created if needed).
  keys list --account <email> [--json]          List an account's keys (never the secrets).
  keys revoke <key-id>                          Revoke a key at once.
  webhooks enable <webhook-id> [--json]         Re-enable a disabled webhook (resets its failure
                                                count; its pending deliveries resume).
  x402 refunds [--json]                         List settled x402 payments that could not be published
                                                and wait to be sent back by hand (x402 has no refund call).
  x402 refunded <payment-request-id> --transaction <0x…> [--json]
                                                Record that you sent one back from the pay-to wallet
                                                (the transfer's hash): it leaves the list, once.
  backup <file> [--json]                        Copy the SQLite database to <file> while the service
                                                runs (SQLite's online backup). On PostgreSQL use pg_dump.
`;

/** Where the CLI writes: process.stdout / process.stderr, or buffers in tests. */
export interface CliOutput {
  write(text: string): unknown;
}

export interface CliIo {
  /** Settings, read as config.ts reads process.env (the default). */
  env?: Record<string, string | undefined>;
  stdout?: CliOutput;
  stderr?: CliOutput;
}

interface Run {
  deps: Deps;
  args: string[];
  stdout: CliOutput;
  stderr: CliOutput;
  /** Pretty JSON on stdout, one document per command. */
  json(value: unknown): void;
}

type Command = (run: Run) => Promise<void>;

function options(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      transaction: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
}

function requireAccount(account: string | undefined): string {
  if (!account) throw new UsageError('--account <email> is required');
  return account;
}

class UsageError extends Error {}

const commands: Record<string, Command> = {
  migrate: async ({ deps, stderr }) => {
    const applied = await migrateToLatest(deps.db);
    stderr.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
  },
  'keys create': async ({ deps, args, stdout, json }) => {
    const { values } = options(args);
    const created = await createApiKey(deps, { accountEmail: requireAccount(values.account), name: values.name ?? null });
    if (values.json)
      json({ id: created.id, key: created.key, account: created.account, name: created.name, created_at: created.created_at });
    else
      stdout.write(`Created key ${created.id} for ${created.account}.\n${created.key}\nStore it now: it is not shown again.\n`);
  },
  'keys list': async ({ deps, args, stdout, json }) => {
    const { values } = options(args);
    const keys = await listApiKeys(deps, requireAccount(values.account));
    if (values.json) json(keys);
    else
      for (const k of keys)
        stdout.write(`${k.id}  ${k.prefix}…  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  ${k.name ?? ''}\n`);
  },
  'keys revoke': async ({ deps, args, stderr }) => {
    const { positionals } = options(args);
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke needs a key id');
    await revokeApiKey(deps, id);
    stderr.write(`Revoked ${id}.\n`);
  },
  'webhooks enable': async ({ deps, args, stderr, json }) => {
    const { positionals, values } = options(args);
    const id = positionals[0];
    if (!id) throw new UsageError('webhooks enable needs a webhook id');
    const webhook = await enableWebhook(deps, null, id);
    if (values.json) json(webhook);
    else stderr.write(`Enabled ${webhook.id} (${webhook.url}).\n`);
  },
  'x402 refunds': async ({ deps, args, stdout, stderr, json }) => {
    const { values } = options(args);
    const waiting = await listX402ManualRefunds(deps);
    if (values.json) json(waiting);
    else if (waiting.length === 0) stderr.write('No x402 payment waits to be sent back.\n');
    else
      for (const r of waiting)
        stdout.write(
          `${r.payment_request_id}  ${r.amount} of ${r.asset ?? '(asset not recorded)'} on ${r.network} (${r.price.amount} ${r.price.currency})` +
            `  back to ${r.payer} from ${r.pay_to ?? 'the pay-to wallet'}  settled ${r.transaction}  waiting since ${r.waiting_since}\n`,
        );
  },
  'x402 refunded': async ({ deps, args, stderr, json }) => {
    const { positionals, values } = options(args);
    const id = positionals[0];
    if (!id) throw new UsageError('x402 refunded needs a payment request id (see x402 refunds)');
    if (!values.transaction) throw new UsageError('--transaction <hash of the transfer back to the payer> is required');
    const recorded = await recordX402ManualRefund(deps, { paymentRequestId: id, transaction: values.transaction });
    if (values.json) json(recorded);
    else stderr.write(`Recorded ${id} as sent back (${recorded.refund_transaction}).\n`);
  },
  backup: async ({ deps, args, stderr, json }) => {
    const { positionals, values } = options(args);
    const target = positionals[0];
    if (!target) throw new UsageError('backup needs a file to write, e.g. backup ./voicename-backup.db');
    if (!deps.db.backup) throw new UsageError('backup copies the embedded SQLite database; on PostgreSQL use pg_dump');
    const file = path.resolve(target);
    const started = Date.now();
    await deps.db.backup(file);
    const result = { file, bytes: fs.statSync(file).size, ms: Date.now() - started };
    if (values.json) json(result);
    else stderr.write(`Backed up the database to ${file} (${result.bytes} bytes, ${result.ms} ms).\n`);
  },
};

/** The first words of two-word commands (`keys create`, `x402 refunds`, …). */
const COMMAND_GROUPS = new Set(
  Object.keys(commands).flatMap((name) => (name.includes(' ') ? [name.split(' ')[0] as string] : [])),
);

/** Runs one CLI command; resolves with the process exit code (0 done, 2 usage or input error). */
export async function runCli(argv: string[], io: CliIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const name = COMMAND_GROUPS.has(argv[0] ?? '') ? `${argv[0]} ${argv[1] ?? ''}` : (argv[0] ?? '');
  const command = commands[name];
  if (!command) {
    stderr.write(USAGE);
    return argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' ? 0 : 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(io.env ?? process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    stderr.write(`Configuration error: ${err.message}\n`);
    return 2;
  }
  const deps = createDeps(config);
  try {
    if (name !== 'migrate') await migrateToLatest(deps.db);
    const json = (value: unknown) => stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    await command({ deps, args: argv.slice(name.split(' ').length), stdout, stderr, json });
    return 0;
  } catch (err) {
    if (
      err instanceof UsageError ||
      err instanceof AppError ||
      err instanceof ConfigError ||
      (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      stderr.write(`Error: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await closeDeps(deps);
  }
}

/** True when this file is the program being run (`tsx src/cli.ts`, `node dist/cli.js`), not an import. */
function isMain(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return fs.realpathSync(path.resolve(script)) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.umask(0o077); // as the server: what the CLI creates under DATA_DIR is private too
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
