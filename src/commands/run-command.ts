/**
 * `docsync run [--once]`. With --once: one catch-up cycle including the full reconcile, under
 * the single-instance lock, ending with daemon.md's exit code. Without: the daemon.
 */

import cliProgress from 'cli-progress';
import { type App, type AppOptions, engineDeps, localStore, openApp } from '../compose.js';
import { Daemon } from '../daemon/daemon.js';
import { startListeners } from '../daemon/daemon-listeners.js';
import { housekeepIfDue } from '../daemon/housekeeping.js';
import { RateMeter } from '../daemon/rate-meter.js';
import { ExitCode } from '../domain/exit-codes.js';
import { runUntilSettled } from '../engine/run-until-settled.js';
import { InstanceLock } from '../state/instance-lock.js';
import { explainStateFailure } from '../state/state-failure.js';
import { Metrics } from '../web/metrics.js';
import type { GlobalOptions } from './index.js';

export interface RunOptions extends GlobalOptions {
  readonly once?: boolean;
  readonly dryRun?: boolean;
  readonly forceDeletes?: boolean;
  readonly adoptLocal?: boolean;
}

/** How long `--once` waits, at most, for files that were still changing to settle. */
const SETTLE_WAIT_MS = 60_000;

export async function runOnce(options: RunOptions): Promise<number> {
  // A dry run prints its plan on stdout; the log keeps out of its way.
  const app = openApp({
    config: options.config,
    logLevel: options.logLevel,
    logToStderr: options.dryRun ?? false,
  });
  try {
    return await runOnceIn(app, options);
  } finally {
    app.close();
  }
}

/** `run --once` on an opened app, which the caller closes (tests reach its state this way). */
export async function runOnceIn(app: App, options: RunOptions): Promise<number> {
  try {
    return await syncOnce(app, options);
  } catch (error) {
    // A state write that failed mid-run: exit 1 with the sentence naming the file, no stack.
    throw explainStateFailure(error, app.config.state.path);
  }
}

async function syncOnce(app: App, options: RunOptions): Promise<number> {
  const lock = InstanceLock.acquire(app.state.db);
  // With the lock held, a cycle still "running" is one a killed process left behind.
  if (!options.dryRun) app.state.cycles.markInterrupted(Date.now());
  const stopping = stopOnSignals(app);
  try {
    const deps = engineDeps(app);
    // Before the cycle, so space taken by stale downloads is back before the sync needs it. A
    // dry run changes nothing, the trash included.
    if (!options.dryRun) await housekeepIfDue({ ...deps, state: app.state });
    const progress = process.stderr.isTTY && !options.dryRun ? progressBar() : undefined;
    const report = await runUntilSettled(
      deps,
      {
        trigger: 'once',
        fullReconcile: true,
        dryRun: options.dryRun ?? false,
        forceDeletes: options.forceDeletes ?? false,
        adoptLocal: options.adoptLocal ?? false,
        onPlanLine: (line) => process.stdout.write(`${line}\n`),
        signal: stopping.signal,
        ...(progress ? { onProgress: progress.update } : {}),
      },
      { settleMs: app.config.settleSeconds * 1000, maxWaitMs: SETTLE_WAIT_MS },
    );
    progress?.stop();
    if (report.settling.length > 0)
      process.stderr.write(
        `docsync: files in ${report.settling.length} entities were still changing after ${SETTLE_WAIT_MS / 1000} s; the next run takes them\n`,
      );
    for (const rail of report.tripped)
      process.stderr.write(`docsync: safety rail: ${rail.message}\n`);
    const summary = `${report.entities} entities, ${report.actions} actions, ${report.documentsFailed} items failed (${report.result})`;
    app.logger.info({ report }, summary);
    if (report.result === 'interrupted')
      process.stderr.write(
        'docsync: stopped by a signal before the run finished; the next run takes up the rest\n',
      );
    return report.exitCode;
  } finally {
    stopping.dispose();
    lock.release();
  }
}

/**
 * SIGINT or SIGTERM during `--once`: the documents in flight finish, nothing new starts, the
 * run is recorded as interrupted and exits 4 (a person pressing Ctrl-C, systemd stopping the
 * catch-up). A second signal exits at once, still recording the run as interrupted, so
 * `docsync status` never shows it running for ever.
 */
function stopOnSignals(app: App) {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      try {
        app.state.cycles.markInterrupted(Date.now());
      } finally {
        process.exit(ExitCode.Interrupted);
      }
    }
    process.stderr.write(
      `docsync: ${signal}: finishing the documents in flight (send it again to stop at once)\n`,
    );
    app.logger.info({ signal }, 'stopping: finishing the documents in flight');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** A progress bar on a terminal (stderr), one step per entity. */
function progressBar() {
  const bar = new cliProgress.SingleBar(
    {
      format: 'syncing [{bar}] {value}/{total} entities',
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done: number, total: number) => {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}

/** The daemon as `docsync run` assembles it, with its listeners and metrics, not started. */
export function createDaemon(
  options: Pick<RunOptions, 'config' | 'logLevel'> & Pick<AppOptions, 'logDestination'>,
): { daemon: Daemon; app: App } {
  const metrics = new Metrics({ processMetrics: true });
  const rate = new RateMeter();
  const app = openApp({
    config: options.config,
    logLevel: options.logLevel,
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    onResponse: (info) => {
      rate.tick();
      metrics.serviceResponse(info);
    },
  });
  const local = localStore(app);
  const daemon = new Daemon({
    app,
    deps: engineDeps(app, local),
    local,
    extras: (d) => startListeners(d, { app, metrics, requestsPerSecond: () => rate.perSecond() }),
    onCycle: (result, rails) => {
      metrics.cycleFinished(result);
      for (let i = 0; i < rails; i++) metrics.railTripped();
    },
  });
  return { daemon, app };
}

/**
 * The daemon, until SIGTERM or SIGINT: the first signal stops intake and lets in-flight work
 * finish; a second one forces the exit (as systemd's stop timeout would). What stops it on its
 * own (a state failure, a refused grant) is thrown, and cli.ts exits 1 with its sentence.
 */
export async function runDaemon(options: RunOptions): Promise<number> {
  const { daemon, app } = createDaemon(options);
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      app.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    app.logger.info({ signal }, 'stopping: finishing the work in flight');
    void daemon.close();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await daemon.start();
    await daemon.finished();
    return 0;
  } catch (error) {
    await daemon.close();
    throw error;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
