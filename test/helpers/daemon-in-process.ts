/**
 * `docsync run` in the test's own process: the daemon as `createDaemon` assembles it for the
 * command line (the same config file, listeners, metrics and operator actions), its JSON log kept
 * as the process would write it on stdout. For tests of what the daemon does; what only a
 * process shows (a signal, the CLI's wiring) keeps a child (daemon-process.ts). A test of a rule
 * about time (a hold, a backoff, the daily housekeeping) hands it a clock of its own
 * (test-clock.ts) and moves that on instead of waiting.
 */
import { afterEach } from 'vitest';
import { createDaemon } from '../../src/commands/run-command.js';
import type { App } from '../../src/compose.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import type { Clock } from '../../src/domain/clock.js';
import type { ServiceClient } from '../../src/remote/service-client.js';
import { capturedTerminal } from './run-cli.js';

/** A line of the daemon's log (pino JSON). */
export interface LogEntry {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface InProcessDaemon {
  readonly daemon: Daemon;
  readonly app: App;
  /** Resolves once the daemon has started (the log says `docsync daemon started`). */
  readonly started: Promise<void>;
  /** Everything it logged so far, one JSON line per entry. */
  output(): string;
  /** The same, parsed: one entry per line. */
  log(): LogEntry[];
  /** The URL a listener logged with `msg` (`webhook receiver listening`); throws before. */
  url(msg: string): string;
  /** What SIGTERM does: intake stops, the work in flight finishes; resolves once it stopped. */
  stop(): Promise<void>;
}

/**
 * Starts in-process daemons on a config file; each is stopped after its test, as the child's
 * SIGKILL stopped it: what it has under way with the service is cut at once (a daemon closed
 * after its simulator would otherwise retry each request in flight with its backoff).
 */
export function useInProcessDaemons(): (
  config: string,
  env: NodeJS.ProcessEnv,
  options?: {
    readonly clock?: Clock;
    /** The sweep of the unlodged list's pace too (by default the machine's monotonic time). */
    readonly sweepClock?: Clock;
  },
) => InProcessDaemon {
  const running: { daemon: Daemon; app: App }[] = [];
  afterEach(async () => {
    await Promise.all(
      running.splice(0).map(({ daemon, app }) => {
        app.remote.queue.stop(0);
        return daemon.close();
      }),
    );
  });
  return (config, env, options = {}) => {
    let output = '';
    const { sweepClock, ...terminal } = options;
    const { daemon, app } = createDaemon(capturedTerminal({ env, ...terminal }).terminal, {
      config,
      ...(sweepClock ? { sweepClock } : {}),
      logDestination: {
        write: (line: string) => {
          output += line;
        },
      },
    });
    running.push({ daemon, app });
    const started = daemon.start();
    // A start that fails is the test's to see, through `started`.
    started.catch(() => undefined);
    return {
      daemon,
      app,
      started,
      output: () => output,
      log: () =>
        output
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as LogEntry),
      url: (msg) => {
        const url = new RegExp(`"url":"([^"]+)","msg":"${msg}"`).exec(output)?.[1];
        if (url === undefined) throw new Error(`nothing logged "${msg}" with a URL yet`);
        return url;
      },
      stop: () => daemon.close(),
    };
  };
}

/** The client's calls a test may hold (the engine's port to the service). */
type HeldCall = 'document' | 'uploadAttachment' | 'downloadAttachment' | 'deleteDocument';

export interface CallGate {
  /** Calls held so far (each waits for `release`). */
  held(): number;
  /** Held calls that have since ended, answered or failed. */
  finished(): number;
  /** Lets every held call, and every later one, go on. */
  release(): void;
}

/**
 * Holds the daemon's calls of one client method that `hold` picks until `release()`: the sync
 * making them stays in flight for exactly as long as the test needs (a service's late answer,
 * without guessing how late is late enough on a busy machine). The port the engine calls is
 * wrapped, as the simulation's port wrappers do; calls `hold` does not pick go through at once.
 * `answer`: the request is sent at once and its answer held (the service has done it, the
 * daemon does not know yet); by default the request waits before it is sent.
 */
export function holdCalls<M extends HeldCall>(
  app: App,
  method: M,
  hold: (...args: Parameters<ServiceClient[M]>) => boolean,
  options: { readonly answer?: boolean } = {},
): CallGate {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  let finished = 0;
  const client = app.remote.client;
  const call = client[method].bind(client) as (
    ...args: Parameters<ServiceClient[M]>
  ) => ReturnType<ServiceClient[M]>;
  const wrapped = async (...args: Parameters<ServiceClient[M]>) => {
    if (!hold(...args)) return call(...args);
    if (!options.answer) {
      held++;
      await gate;
      try {
        return await call(...args);
      } finally {
        finished++;
      }
    }
    // Held once the service has answered: the call is carried out, only its answer waits.
    const answer = await call(...args);
    held++;
    await gate;
    finished++;
    return answer;
  };
  client[method] = wrapped as unknown as ServiceClient[M];
  return { held: () => held, finished: () => finished, release };
}

/** Holds the daemon's reads of one document's details (`holdCalls`). */
export function holdDocumentDetails(app: App, documentId: string): CallGate {
  return holdCalls(app, 'document', (_owner, id) => id === documentId);
}
