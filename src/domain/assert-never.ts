/**
 * The end of an exhaustive `switch` over a union: it compiles only while every member has its
 * case, so a new kind (an action, an outbox entry) cannot fall through unnoticed; at run time it
 * reports the value nothing handled.
 */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
