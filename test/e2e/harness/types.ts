// Type-only (erased at runtime): global-setup runs in vitest's main process.
import type {} from 'vitest';
import type { DaskLine } from './dask-versions.js';

/** Serializable description of the e2e hosts: plain data, so it survives vitest's provide/inject. */
export interface TestHost {
  name: string;
  /** Network namespace name; '' in loopback fallback mode. */
  ns: string;
  ip: string;
  port: number;
  hostKeyPubPath: string;
  sshdPid: number;
  /** Interface inside the namespace that setLink toggles. */
  link: string;
  /** Default gateway (the bridge IP); needed to restore the route after a link flap. */
  gateway: string;
}

/** The hosts and their network: what createTestHosts makes. */
export interface TestHostsNet {
  mode: 'netns' | 'loopback';
  hosts: TestHost[];
  dir: string;
  clientKeyPath: string;
  knownHostsPath: string;
  /** Root-namespace address the hosts route through; 127.0.0.1 in loopback mode. */
  bridgeIp: string;
}

/** What global-setup provides to e2e files: the hosts, plus the Dask they run. */
export interface TestHostsInfo extends TestHostsNet {
  /** The Dask line this project's hosts run (vitest project e2e: 2022.12, e2e-dask2024: 2024.12). */
  dask: DaskLine;
  /** distributed.__version__ of that line, as its python reports it. */
  daskVersion: string;
  /** remote_python for this project's hosts, also the test clients' python. */
  python: string;
  /** The interpreter of each line, for tests that mix versions. */
  pythons: Record<DaskLine, string>;
  /** The Debian trixie root the 2024.12 interpreter chroots into. */
  trixieRoot: string;
}

// Augments inject()/provide() typing for 'testHosts'.
declare module 'vitest' {
  export interface ProvidedContext {
    testHosts: TestHostsInfo;
    /** Set in vitest.config.ts per e2e project: the Dask line its hosts run. */
    daskLine: DaskLine;
  }
}
