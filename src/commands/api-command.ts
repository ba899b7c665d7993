/**
 * `docsync api …`: runs one operation and prints its result as JSON on stdout. Lists stream as
 * a JSON array item by item, so a firm's whole document list never sits in memory.
 */
import { openApp } from '../compose.js';
import { type ApiCall, resolveOperation } from './api-operations.js';
import type { GlobalOptions } from './index.js';

export interface ApiCommandOptions extends Omit<ApiCall, 'args'>, GlobalOptions {
  readonly resource: string;
  readonly operation: string;
  readonly args: readonly string[];
}

export async function apiCommand(options: ApiCommandOptions): Promise<void> {
  const { op, args } = resolveOperation(options.resource, options.operation, options.args);
  const app = openApp({ config: options.config, logLevel: options.logLevel, logToStderr: true });
  try {
    const result = op.run(app.remote.client, options, args);
    if (isAsyncIterable(result)) {
      let first = true;
      process.stdout.write('[');
      for await (const item of result) {
        process.stdout.write(`${first ? '\n' : ',\n'}${JSON.stringify(item)}`);
        first = false;
      }
      process.stdout.write(first ? ']\n' : '\n]\n');
    } else {
      process.stdout.write(`${JSON.stringify(await result, null, 2)}\n`);
    }
  } finally {
    app.close();
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function';
}
