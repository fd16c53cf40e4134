/**
 * The command blocks of the guides (docs/README.md has the convention): fenced `sh`, `bash` and
 * `shell` blocks and `ts` blocks run in order unless their info string says `no-run`; a block
 * marked `env` (```sh env) sets where the reader's own services are (`BASE_URL`, ports): the
 * tests set those variables to their own servers instead of running it. `file=<name>` (```ts
 * file=walk-through.ts) names the file the text tells the reader to save the block as.
 * `python` blocks follow the same `no-run` rule; tests/python-client.test.ts runs them.
 */
import { marked, type Token } from 'marked';

const SHELL = new Set(['sh', 'bash', 'shell']);
const TYPESCRIPT = new Set(['ts', 'typescript']);
const PYTHON = new Set(['python', 'py']);

export interface Block {
  kind: 'sh' | 'ts' | 'env' | 'python';
  body: string;
  line: number;
  /** The file name the guide gives the block (`file=<name>` in its info string). */
  file?: string;
}

/** Fenced blocks of one markdown file not marked `no-run`, in order (inside lists and quotes too), of the kinds `kindOf` names. */
function fencedBlocks(markdown: string, kindOf: (lang: string, info: string[]) => Block['kind'] | null): Block[] {
  const blocks: Block[] = [];
  const visit = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === 'code') {
        const info = ((token as { lang?: string }).lang ?? '').trim().split(/\s+/);
        const kind = info.includes('no-run') ? null : kindOf(info[0] ?? '', info);
        if (kind) {
          const at = markdown.indexOf(token.raw);
          const file = info.find((word) => word.startsWith('file='))?.slice('file='.length);
          blocks.push({
            kind,
            body: (token as { text: string }).text,
            line: markdown.slice(0, at).split('\n').length,
            ...(file ? { file } : {}),
          });
        }
      }
      const children = (token as { tokens?: Token[]; items?: Token[] }).tokens ?? (token as { items?: Token[] }).items;
      if (children) visit(children);
    }
  };
  visit(marked.lexer(markdown));
  return blocks;
}

/** Command blocks of one markdown file, in order (inside lists and quotes too). */
export function commandBlocks(markdown: string): Block[] {
  return fencedBlocks(markdown, (lang, info) => {
    if (!SHELL.has(lang) && !TYPESCRIPT.has(lang)) return null;
    return info.includes('env') ? 'env' : SHELL.has(lang) ? 'sh' : 'ts';
  });
}

/** The `python` blocks of one markdown file that run (not marked `no-run`), in order. */
export function pythonBlocks(markdown: string): Block[] {
  return fencedBlocks(markdown, (lang) => (PYTHON.has(lang) ? 'python' : null));
}

/** Blocks the tests run: every command block but the `env` ones. */
export function runnableBlocks(markdown: string): Block[] {
  return commandBlocks(markdown).filter((block) => block.kind !== 'env');
}

/** The variables an `env` block sets (`export NAME=value` lines), each with the value the reader is told. */
export function envSettings(block: Block): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of block.body.split('\n')) {
    const match = /^export ([A-Z][A-Z0-9_]*)=(\S*)/.exec(line.trim());
    if (match) settings.set(match[1] as string, match[2] as string);
    else if (line.trim() !== '' && !line.trim().startsWith('#')) throw new Error(`not an export line in an env block: ${line}`);
  }
  return settings;
}
