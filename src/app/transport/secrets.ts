// Secrets are fetched when a connection needs them and handed straight to ssh2; they
// are never stored on a spec, logged or put into an error message.
import type { SecretSource } from '../../config/spec.js';
import { ExpectedError } from '../../errors.js';
import type { AppContext } from '../context.js';

export interface SecretProvider {
  get(source: SecretSource, what: string): Promise<string>;
}

export function secretProvider(ctx: AppContext): SecretProvider {
  const cache = new Map<string, Promise<string>>();
  return {
    get(source, what) {
      if (source.kind === 'env') {
        const v = ctx.env[source.variable];
        if (v === undefined || v === '') {
          return Promise.reject(
            new ExpectedError(`${what}: environment variable ${source.variable} is not set`, {
              hint: `export ${source.variable}=… before running sshcluster`,
            }),
          );
        }
        return Promise.resolve(v);
      }
      // One prompt per question, even when many hosts ask at once.
      let p = cache.get(what);
      if (!p) {
        p = ctx.promptSecret(`${what}: `);
        cache.set(what, p);
      }
      return p;
    },
  };
}
