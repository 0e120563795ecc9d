// Typed control RPC: one table of methods, each with a parser for its params (run by
// the server on what arrives from the wire) and the type of its result. The client
// takes the table's type, the server the table itself, so a method's name, params and
// result are written once and both ends are checked against them.
import { UsageError } from '../errors.js';

export interface Method<P, R> {
  /** Turns the wire's params into P, or throws a UsageError saying what is wrong. */
  parse(raw: unknown): P;
  /** Never set: carries the result type. */
  readonly result?: R;
}

// Any record of methods (`any`: a Method<P, R> of any P and R belongs in a table).
export type MethodTable = Record<string, Method<any, any>>;
export type ParamsOf<T> = T extends Method<infer P, unknown> ? P : never;
export type ResultOf<T> = T extends Method<unknown, infer R> ? R : never;

/** A method of the table, with its params parser. */
export function method<P, R>(parse: (raw: unknown) => P): Method<P, R> {
  return { parse };
}

/** A method that takes no params (whatever is sent is ignored). */
export function noParams(): undefined {
  return undefined;
}

/** The params as an object, for a parser to read fields from. */
export function paramsObject(raw: unknown, methodName: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UsageError(`${methodName}: expected an object of params, got ${JSON.stringify(raw) ?? 'nothing'}`);
  }
  return raw as Record<string, unknown>;
}
