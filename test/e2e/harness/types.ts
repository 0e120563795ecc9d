// Type-only (erased at runtime): global-setup runs in vitest's main process.
import type {} from 'vitest';

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

export interface TestHostsInfo {
  mode: 'netns' | 'loopback';
  hosts: TestHost[];
  dir: string;
  clientKeyPath: string;
  knownHostsPath: string;
  /** Root-namespace address the hosts route through; 127.0.0.1 in loopback mode. */
  bridgeIp: string;
}

// Augments inject()/provide() typing for 'testHosts'.
declare module 'vitest' {
  export interface ProvidedContext {
    testHosts: TestHostsInfo;
  }
}
