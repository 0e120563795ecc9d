// ssh2, loaded without the WebAssembly module it has no use for here.
//
// When it loads, ssh2 compiles and instantiates a WebAssembly poly1305 (its crypto.js
// `init`). Only its JavaScript chacha20-poly1305 calls it, and ssh2 uses that only when
// its native binding (sshcrypto.node, built when it is installed) is missing. Compiling
// it costs a long-lived process 3.8 MB of RSS (V8's WebAssembly compiler pages and the
// module's memory; `require('ssh2')` alone is 13 MB). So when the binding has both
// chacha20-poly1305 classes, require's cache (documented as writable) holds, in the
// module's place, a stand-in that is never called. Without the binding ssh2 loads as it is.
import Module, { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

function skipUnusedWasm(): void {
  let wasmFile: string;
  try {
    const binding = load('ssh2/lib/protocol/crypto/build/Release/sshcrypto.node') as Record<string, unknown>;
    if (typeof binding.ChaChaPolyCipher !== 'function' || typeof binding.ChaChaPolyDecipher !== 'function') return;
    wasmFile = load.resolve('ssh2/lib/protocol/crypto/poly1305.js');
  } catch {
    return;
  }
  const unused = (): never => {
    throw new Error('ssh2: the WebAssembly poly1305 was not loaded, as the native binding does chacha20-poly1305');
  };
  const stand = new Module(wasmFile);
  stand.filename = wasmFile;
  stand.loaded = true;
  // The emscripten factory's shape: () => Promise<module>; crypto.js calls _malloc and cwrap.
  stand.exports = async () => ({ _malloc: () => 0, cwrap: () => unused, HEAPU8: new Uint8Array(0) });
  load.cache[wasmFile] = stand;
}

type Ssh2 = typeof import('ssh2');
/** What we use of ssh2: its client, and its key parser. */
export interface Ssh2Parts {
  Client: Ssh2['Client'];
  utils: Pick<Ssh2['utils'], 'parseKey'>;
}

let loaded: Ssh2Parts | undefined;

/**
 * ssh2, loaded on first use rather than with this module: `up` has its TCP connections
 * opened by then (connect.ts), so each host's sshd starts its session process while
 * ssh2's ~25 ms of loading runs here, not after it. Only the client and the key parser:
 * ssh2's index also loads its server and its HTTP agents (node's http, https), ~3 ms more.
 */
export function ssh2(): Ssh2Parts {
  if (!loaded) {
    skipUnusedWasm();
    // In the bundle (CommonJS: it has a require), esbuild follows these two and bundles
    // ssh2's JavaScript, which the code cache then holds; its native binding and the
    // WebAssembly module stay files in node_modules (scripts/build.mjs). Sources: `load`.
    const bundled = typeof require === 'function';
    const { parseKey } = (
      bundled ? require('ssh2/lib/protocol/keyParser.js') : load('ssh2/lib/protocol/keyParser.js')
    ) as Ssh2['utils'];
    const Client = (bundled ? require('ssh2/lib/client.js') : load('ssh2/lib/client.js')) as Ssh2['Client'];
    loaded = { Client, utils: { parseKey } };
  }
  return loaded;
}
