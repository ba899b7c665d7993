/**
 * `docsync run` in the test's own process: the daemon as `createDaemon` assembles it for the
 * command line (the same config file, listeners, metrics and operator actions), its JSON log kept
 * as the process would write it on stdout. For tests of what the daemon does; what only a
 * process shows (a signal, the CLI's wiring) keeps a child (daemon-process.ts).
 */
import { afterEach } from 'vitest';
import { createDaemon } from '../../src/commands/run-command.js';
import type { App } from '../../src/compose.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { capturedTerminal } from './run-cli.js';

export interface InProcessDaemon {
  readonly daemon: Daemon;
  readonly app: App;
  /** Resolves once the daemon has started (the log says `docsync daemon started`). */
  readonly started: Promise<void>;
  /** Everything it logged so far, one JSON line per entry. */
  output(): string;
  /** The URL a listener logged with `msg` (`webhook receiver listening`); throws before. */
  url(msg: string): string;
  /** What SIGTERM does: intake stops, the work in flight finishes; resolves once it stopped. */
  stop(): Promise<void>;
}

/** Starts in-process daemons on a config file; each is stopped after its test. */
export function useInProcessDaemons(): (config: string, env: NodeJS.ProcessEnv) => InProcessDaemon {
  const running: Daemon[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((d) => d.close()));
  });
  return (config, env) => {
    let output = '';
    const { daemon, app } = createDaemon(capturedTerminal({ env }).terminal, {
      config,
      logDestination: {
        write: (line: string) => {
          output += line;
        },
      },
    });
    running.push(daemon);
    const started = daemon.start();
    // A start that fails is the test's to see, through `started`.
    started.catch(() => undefined);
    return {
      daemon,
      app,
      started,
      output: () => output,
      url: (msg) => {
        const url = new RegExp(`"url":"([^"]+)","msg":"${msg}"`).exec(output)?.[1];
        if (url === undefined) throw new Error(`nothing logged "${msg}" with a URL yet`);
        return url;
      },
      stop: () => daemon.close(),
    };
  };
}

/**
 * Holds the daemon's reads of one document's details until `release()`: the sync that reads it
 * stays in flight for exactly as long as the test needs (a service's late answer, without
 * guessing how late is late enough on a busy machine). The port the engine calls is wrapped, as
 * the simulation's port wrappers do; every other call goes through at once.
 */
export function holdDocumentDetails(
  app: App,
  documentId: string,
): { readonly held: () => number; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  const client = app.remote.client;
  const read = client.document.bind(client);
  client.document = async (owner, id, options) => {
    if (id === documentId) {
      held++;
      await gate;
    }
    return read(owner, id, options);
  };
  return { held: () => held, release };
}
