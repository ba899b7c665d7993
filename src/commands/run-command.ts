/**
 * `docsync run [--once]`. With --once: one catch-up cycle including the full reconcile, under
 * the single-instance lock, ending with daemon.md's exit code. Without: the daemon.
 */

import { type App, type AppOptions, engineDeps, localStore, openApp } from '../compose.js';
import { Daemon } from '../daemon/daemon.js';
import { startListeners } from '../daemon/daemon-listeners.js';
import { housekeepIfDue } from '../daemon/housekeeping.js';
import { RateMeter } from '../daemon/rate-meter.js';
import { claimService } from '../daemon/service-claim.js';
import { inAdviceForm } from '../domain/advice-form.js';
import type { Clock } from '../domain/clock.js';
import { ExitCode } from '../domain/exit-codes.js';
import type { CycleReport } from '../engine/cycle-report.js';
import type { CycleProgress } from '../engine/cycle-tally.js';
import { runUntilSettled } from '../engine/run-until-settled.js';
import { LogRelay } from '../log/log-relay.js';
import { STOP_GRACE_MS } from '../remote/request-queue.js';
import { InstanceLock } from '../state/instance-lock.js';
import { explainStateFailure } from '../state/state-failure.js';
import { Metrics } from '../web/metrics.js';
import { operatorActions } from '../web/operator-actions.js';
import { adviceFormHere } from './advice-here.js';
import type { GlobalOptions } from './index.js';
import {
  summaryJson,
  summaryLogLine,
  summaryText,
  type Unsaid,
  unsaidSentence,
} from './once-summary.js';
import { ProgressDisplay } from './progress-display.js';
import type { Terminal } from './terminal.js';
import { VERSION } from './version.js';

export interface RunOptions extends GlobalOptions {
  readonly once?: boolean;
  readonly dryRun?: boolean;
  readonly forceDeletes?: boolean;
  readonly adoptLocal?: boolean;
  /** `--once`: the summary as one JSON object on stdout, and nothing else there. */
  readonly json?: boolean;
}

/** How long `--once` waits, at most, for files that were still changing to settle. */
const SETTLE_WAIT_MS = 60_000;

/** Where `--once` writes: its log, its progress display, its summary. */
export interface OnceOutput {
  readonly terminal: Terminal;
  /** Draw the progress display on stderr (a terminal). */
  readonly progress: boolean;
  /** The log, when it goes to the terminal the display draws on: it goes through the display. */
  readonly relay?: LogRelay;
}

export async function runOnce(options: RunOptions, terminal: Terminal): Promise<number> {
  // A dry run prints its plan, `--json` its summary, on stdout; the log keeps out of their way.
  const logToStderr = Boolean(options.dryRun || options.json);
  const progress = terminal.stderr.isTTY === true && !options.dryRun;
  const logStream = logToStderr ? terminal.stderr : terminal.stdout;
  const relay = progress && logStream.isTTY ? new LogRelay(logStream, { pretty: true }) : undefined;
  const app = openApp(terminal, {
    config: options.config,
    logLevel: options.logLevel,
    logToStderr,
    ...(relay ? { logDestination: relay } : {}),
  });
  try {
    return await runOnceIn(app, options, { terminal, progress, ...(relay ? { relay } : {}) });
  } finally {
    app.close();
  }
}

/** `run --once` on an opened app, which the caller closes (tests reach its state this way). */
export async function runOnceIn(
  app: App,
  options: RunOptions,
  output: OnceOutput,
): Promise<number> {
  try {
    return await syncOnce(app, options, output);
  } catch (error) {
    // A state write that failed mid-run: exit 1 with the sentence naming the file, no stack.
    throw explainStateFailure(error, app.config.state.path);
  }
}

async function syncOnce(app: App, options: RunOptions, output: OnceOutput): Promise<number> {
  const lock = InstanceLock.acquire(app.state.db);
  // With the lock held, a cycle still "running" is one a killed process left behind.
  if (!options.dryRun) app.state.cycles.markInterrupted(Date.now());
  const { stdout, stderr } = output.terminal;
  const display = output.progress ? new ProgressDisplay(stderr) : undefined;
  // What it advises, it advises for this firm's configuration, in the form that runs here.
  const advice = adviceFormHere(output.terminal, options.config);
  const said = (line: string) => inAdviceForm(line, advice);
  const say = (line: string) =>
    display ? display.print(said(line)) : stderr.write(`${said(line)}\n`);
  let progress: CycleProgress | null = null;
  const stopping = stopOnSignals(app, say, {
    // The bar stops with the signal: it must not look as if the run went on.
    onStop: () => display?.stop(),
    progress: () => progress,
  });
  const restoreLog = display && output.relay ? output.relay.divert((t) => display.print(t)) : null;
  const startedAt = Date.now();
  const plan: string[] = [];
  try {
    const deps = engineDeps(app);
    // A state or folder of another service stops the run before anything reaches either.
    await claimService(
      {
        settings: app.state.settings,
        local: deps.local,
        logger: app.logger,
        authorise: () => app.remote.tokens.accessToken(),
      },
      {
        baseUrl: app.config.service.baseUrl,
        statePath: app.config.state.path,
        root: app.config.store.root,
        record: !options.dryRun,
      },
    );
    // Before the cycle, so space taken by stale downloads is back before the sync needs it. A
    // dry run changes nothing, the trash included.
    if (!options.dryRun) await housekeepIfDue({ ...deps, state: app.state });
    // The work a daemon left (a stop, a failed sync) up to here is what this whole run covers.
    const seen = app.state.work.seenSoFar();
    const report = await runUntilSettled(
      deps,
      {
        trigger: 'once',
        fullReconcile: true,
        dryRun: options.dryRun ?? false,
        forceDeletes: options.forceDeletes ?? false,
        adoptLocal: options.adoptLocal ?? false,
        onPlanLine: (line) => (options.json ? plan.push(line) : stdout.write(`${said(line)}\n`)),
        signal: stopping.signal,
        onProgress: (p: CycleProgress) => {
          progress = p;
          if (!stopping.signal.aborted) display?.update(p);
        },
      },
      { settleMs: app.config.settleSeconds * 1000, maxWaitMs: SETTLE_WAIT_MS, clock: app.clock },
    );
    display?.stop();
    restoreLog?.();
    // A whole cycle sent what a daemon had found waiting in the folders (`docsync status`); one
    // that succeeded did all the work the daemon had left too.
    if (report.result !== 'interrupted' && !options.dryRun)
      app.state.settleEverySync(report.result === 'ok' ? seen : 0, true, Date.now());
    const durationMs = Date.now() - startedAt;
    if (report.settling.length > 0)
      say(
        `docsync: files in ${report.settling.length} entities were still changing after ${SETTLE_WAIT_MS / 1000} s; the next run takes them`,
      );
    for (const rail of report.tripped) say(`docsync: safety rail: ${rail.message}`);
    if (report.tripped.some((t) => t.rail === 'delete-count' || t.rail === 'delete-percent'))
      say(
        'docsync: or, to let every held delete through in one run: `docsync run --once --force-deletes`',
      );
    if (report.result === 'interrupted')
      say(
        `docsync: stopped by a signal before the run finished${leftText(report.left)}; the next run takes up the rest`,
      );
    const unsaid = unsaidOf(app);
    const sentence = unsaidSentence(unsaid);
    if (sentence && !options.dryRun) say(sentence);
    const summary = summaryJson(report, durationMs, unsaid);
    app.logger.info({ report: summary }, summaryLogLine(report, durationMs));
    // A person at a terminal reads the summary; a timer's run stays quiet on stderr (the log
    // line above has the same numbers), and a script asks for --json.
    if (options.json)
      stdout.write(`${JSON.stringify(options.dryRun ? { ...summary, plan } : summary)}\n`);
    else if (!options.dryRun && stderr.isTTY) stderr.write(said(summaryText(report, durationMs)));
    return report.exitCode;
  } finally {
    display?.stop();
    restoreLog?.();
    stopping.dispose();
    lock.release();
  }
}

/** What `docsync status` lists beside the counts, as it lists it. */
function unsaidOf(app: App): Unsaid {
  return {
    unmatchedFolders: app.state.entities
      .listUnmatchedFolders()
      .map(({ folder, kind, reason }) => ({ folder, kind, reason })),
    notSynced: app.state.skipped
      .list()
      .map(({ path, reason }) => ({ path, reason }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}

interface StopHooks {
  /** Called at the first signal (the progress display stops). */
  readonly onStop: () => void;
  /** How far the run got, for the second signal's sentence. */
  readonly progress: () => CycleProgress | null;
}

/**
 * SIGINT or SIGTERM during `--once` means now: nothing new starts, requests waiting
 * in the queue are dropped, those in flight get STOP_GRACE_MS and are then cut (a partial
 * download is discarded; a push cut in flight stays in doubt for the next run to settle). The
 * run is recorded as interrupted and exits 4. A second signal exits at once, still recording the
 * run as interrupted, so `docsync status` never shows it running for ever, and says what was left.
 */
function stopOnSignals(app: App, say: (line: string) => void, hooks: StopHooks) {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      try {
        say(`docsync: ${signal} again: stopped at once; ${doneSoFar(hooks.progress())}`);
        app.state.cycles.markInterrupted(Date.now());
      } finally {
        process.exit(ExitCode.Interrupted);
      }
    }
    hooks.onStop();
    say(
      `docsync: ${signal}: stopping now: nothing new starts, what is in flight gets ${STOP_GRACE_MS / 1000} s (send it again to stop at once)`,
    );
    app.logger.info({ signal }, 'stopping: nothing new starts');
    controller.abort();
    app.remote.queue.stop();
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

/** " (12 documents and 3 entities left)", or nothing when the stop left nothing countable. */
function leftText(left: CycleReport['left']): string {
  const parts = [
    left.documents > 0 ? plural(left.documents, 'document') : '',
    left.entities > 0 ? plural(left.entities, 'entity', 'entities') : '',
  ].filter(Boolean);
  return parts.length === 0 ? '' : ` (${parts.join(' and ')} left)`;
}

/** What the second signal says: how far the run got, and that the next run finishes it. */
function doneSoFar(p: CycleProgress | null): string {
  const reached =
    p === null || p.entitiesTotal === 0
      ? 'no entity was synced yet'
      : `${p.entitiesDone} of ${plural(p.entitiesTotal, 'entity', 'entities')} and ${p.documentsDone} of ${plural(p.documentsPlanned, 'document')} were done`;
  return `${reached}; the next run finishes the rest (a push cut in flight is checked with the service first)`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The daemon as `docsync run` assembles it, with its listeners and metrics, not started. */
export function createDaemon(
  terminal: Terminal,
  options: Pick<RunOptions, 'config' | 'logLevel'> &
    Pick<AppOptions, 'logDestination'> & {
      /** What the sweep of the unlodged list keeps its pace by, when not the monotonic time. */
      readonly sweepClock?: Clock;
    },
): { daemon: Daemon; app: App } {
  const metrics = new Metrics({ processMetrics: true });
  const rate = new RateMeter();
  // Any answer but a 5xx: the service is there (health.ts counts it while a long sync runs).
  let lastAnswerAt: number | null = null;
  const app = openApp(terminal, {
    config: options.config,
    logLevel: options.logLevel,
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    onResponse: (info) => {
      rate.tick();
      metrics.serviceResponse(info);
      if (info.status !== 'network' && info.status < 500) lastAnswerAt = Date.now();
    },
  });
  metrics.watchGovernor(() => app.remote.queue.governor());
  const local = localStore(app);
  const deps = engineDeps(app, local);
  // The daemon's own state, folder and entity locks: a decision's renames are its own writes,
  // which its watcher ignores, so each one names the entities to sync. They run under the
  // entity's lock, the one the syncs take.
  const operator = {
    state: app.state,
    local,
    webUrl: app.config.service.webUrl,
    onRemoteDelete: app.config.onRemoteDelete,
    now: () => app.clock.now(),
    locks: deps.locks,
  };
  const daemon = new Daemon({
    app,
    deps,
    local,
    operator,
    unlodged: (offset) => app.remote.client.unlodgedPage(offset),
    ...(options.sweepClock ? { sweepClock: options.sweepClock } : {}),
    authorise: () => app.remote.tokens.accessToken(),
    extras: (d) =>
      startListeners(d, {
        app,
        metrics,
        requestsPerSecond: () => rate.perSecond(),
        lastServiceAnswerAt: () => lastAnswerAt,
        version: VERSION,
        // The page is read on this machine: its advice, for this firm's configuration.
        advice: adviceFormHere(terminal, options.config),
        // Each action names the entity to sync (`syncAfter`).
        operator: operatorActions(operator, (owner, job) =>
          d.withEntity(owner, 'status page', job),
        ),
      }),
    onCycle: (result, rails) => {
      metrics.cycleFinished(result);
      for (let i = 0; i < rails; i++) metrics.railTripped();
    },
    onWebhookEvent: (result) => metrics.webhookEvent(result),
  });
  return { daemon, app };
}

/**
 * The daemon, until SIGTERM or SIGINT: the first signal stops intake, refuses the requests that
 * wait and gives those in flight a second, so each sync ends at its next step; a second signal
 * forces the exit (as systemd's stop timeout would). What stops it on its own (a state failure,
 * a refused grant) is thrown, and cli.ts exits 1 with its sentence.
 */
export async function runDaemon(options: RunOptions, terminal: Terminal): Promise<number> {
  const { daemon, app } = createDaemon(terminal, options);
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      app.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    app.logger.info({ signal }, 'stopping: nothing new starts; requests in flight get a second');
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
