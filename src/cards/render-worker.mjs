// Worker thread of the image renderer (see renderer.ts): SVG → PNG with resvg (WebAssembly).
// Plain JavaScript so it runs the same under tsx, vitest and the compiled build. The wasm module
// and each font file load once, on first use. Receives {id, svg, fonts: [paths], zoom};
// answers {id, png, ms} or {id, error}.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

const require = createRequire(import.meta.url);
await initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));

const fontBuffers = new Map();
const fontBuffer = (file) => {
  let buffer = fontBuffers.get(file);
  if (!buffer) {
    buffer = new Uint8Array(readFileSync(file));
    fontBuffers.set(file, buffer);
  }
  return buffer;
};

function render({ svg, fonts, defaultFontFamily, zoom }) {
  const started = performance.now();
  const resvg = new Resvg(svg, {
    font: { fontBuffers: fonts.map(fontBuffer), loadSystemFonts: false, defaultFontFamily },
    fitTo: zoom === 1 ? { mode: 'original' } : { mode: 'zoom', value: zoom },
    shapeRendering: 2,
    textRendering: 1,
  });
  try {
    const image = resvg.render();
    const png = image.asPng();
    image.free();
    return { png, ms: performance.now() - started };
  } finally {
    resvg.free();
  }
}

parentPort.on('message', (request) => {
  try {
    const { png, ms } = render(request);
    parentPort.postMessage({ id: request.id, png, ms }, [png.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) });
  }
});
parentPort.postMessage({ ready: true });
