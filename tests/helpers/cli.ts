/**
 * The operator CLI run in-process (`runCli` from src/cli.ts) with its output captured: the same
 * code as `npm run --silent cli -- …` without paying for a new Node process and tsx per call.
 */
import { runCli } from '../../src/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCliCaptured(env: Record<string, string | undefined>, args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
