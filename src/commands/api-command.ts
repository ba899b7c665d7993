/**
 * `docsync api …`: runs one operation and prints its result as JSON on stdout (api-output.ts:
 * one JSON value, also when the call fails). The arguments and the local files are checked
 * before any request; a 4xx is said as what it is, a refusal that changed nothing.
 */
import { openApp } from '../compose.js';
import { DocsyncError } from '../domain/errors.js';
import { ApiError, serviceErrorOf } from '../remote/api-error.js';
import { type ApiCall, resolveOperation, withPathsFrom } from './api-operations.js';
import { JsonOutput } from './api-output.js';
import type { GlobalOptions } from './index.js';
import type { Terminal } from './terminal.js';

export interface ApiCommandOptions extends Omit<ApiCall, 'args'>, GlobalOptions {
  readonly resource: string;
  readonly operation: string;
  readonly args: readonly string[];
}

export async function apiCommand(options: ApiCommandOptions, terminal: Terminal): Promise<void> {
  const resolved = resolveOperation(options.resource, options.operation, options.args, options);
  const { op } = resolved;
  const { call, args } = withPathsFrom(terminal.cwd, op, options, resolved.args);
  await op.check?.(call, args);
  // Never an upgrade of the state: the previous version's daemon may still be using it.
  const app = openApp(terminal, {
    config: options.config,
    logLevel: options.logLevel,
    logToStderr: true,
    upgradeState: false,
  });
  const out = new JsonOutput(terminal.stdout);
  try {
    const result = op.run(app.remote.client, call, args);
    if (isAsyncIterable(result)) {
      for await (const item of result) {
        if (out.closed) break;
        out.item(item);
      }
      out.endList();
    } else {
      out.value(await result);
    }
  } catch (error) {
    out.failed(error);
    throw refusal(error) ?? error;
  } finally {
    app.close();
  }
}

/**
 * A 4xx to a request that changes something: the service looked at it and refused it, so
 * nothing was applied, and the user needs the service's own words to fix the request.
 */
function refusal(error: unknown): DocsyncError | null {
  if (!(error instanceof ApiError) || error.code !== 'HTTP_ERROR') return null;
  const status = error.status ?? 0;
  if (status < 400 || status >= 500 || error.route.startsWith('GET ')) return null;
  // Either shape of error body (api.md's, or OAuth's `error_description`).
  const detail = serviceErrorOf(error.responseBody).text;
  const said = detail ? `: ${detail}` : '';
  return new DocsyncError(
    'REFUSED',
    `the service refused ${error.route} (${status}${error.serviceCode ? ` ${error.serviceCode}` : ''})${said}; nothing was changed`,
    { cause: error },
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function';
}
