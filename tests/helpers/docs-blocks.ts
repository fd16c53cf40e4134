/**
 * The command blocks of the guides (docs/README.md has the convention): fenced `sh`, `bash` and
 * `shell` blocks and `ts` blocks run in order unless their info string says `no-run`; a block
 * marked `env` (```sh env) sets where the reader's own services are (`BASE_URL`, ports): the
 * tests set those variables to their own servers instead of running it. `file=<name>` (```ts
 * file=walk-through.ts) names the file the text tells the reader to save the block as.
 */
import { marked, type Token } from 'marked';

const SHELL = new Set(['sh', 'bash', 'shell']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

export interface Block {
  kind: 'sh' | 'ts' | 'env';
  body: string;
  line: number;
  /** The file name the guide gives the block (`file=<name>` in its info string). */
  file?: string;
}

/** Command blocks of one markdown file, in order (inside lists and quotes too). */
export function commandBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const visit = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === 'code') {
        const info = ((token as { lang?: string }).lang ?? '').trim().split(/\s+/);
        const lang = info[0] ?? '';
        if (!info.includes('no-run') && (SHELL.has(lang) || TYPESCRIPT.has(lang))) {
          const at = markdown.indexOf(token.raw);
          const file = info.find((word) => word.startsWith('file='))?.slice('file='.length);
          blocks.push({
            kind: info.includes('env') ? 'env' : SHELL.has(lang) ? 'sh' : 'ts',
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
