/**
 * What `docsync conflicts`, `trash` and `deletes` run on: the configuration, the state database
 * (opened as it is, never created: a mistyped `state.path` must not look like "nothing held")
 * and the folder. No client of the service: these commands change the folder and the state,
 * and the next sync carries the changes over.
 *
 * A decision (resolve, approve, discard, restore) is carried out by whoever has the store
 * (`decide`): with a daemon running, the command records it and waits while the daemon carries
 * it out under the entity's lock, between its syncs, then prints the daemon's outcome; with none,
 * the command takes the state's lock (the instance lock) and carries it out itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config/load-config.js';
import { inAdviceForm } from '../domain/advice-form.js';
import { OperatorError } from '../domain/errors.js';
import type { OwnerRef } from '../domain/types.js';
import { entityLabel } from '../domain/words.js';
import { EntityLocks } from '../engine/entity-locks.js';
import { FsLocalStore } from '../local/fs-local-store.js';
import {
  carryOutDecision,
  type DecisionOutcome,
  type DecisionRequest,
  type DecisionResult,
  decodeOutcome,
  encodeOutcome,
  encodeRequest,
  refusalError,
} from '../operator/decisions.js';
import { type OperatorDeps, rightAway } from '../operator/operator-deps.js';
import { InstanceLock } from '../state/instance-lock.js';
import { explainStateFailure } from '../state/state-failure.js';
import { StateStore } from '../state/state-store.js';
import { adviceFormHere } from './advice-here.js';
import type { Terminal } from './terminal.js';

/** How often a waiting command reads the outcome (and whether the daemon still runs). */
const POLL_MS = 200;
/** After this long without an outcome, the command says what it waits for. */
const SAY_WAITING_AFTER_MS = 2_000;
/** The longest a command waits; the decision stays recorded, and is carried out after. */
const MAX_WAIT_MS = 10 * 60_000;

/** Runs `use` on the operator's deps, and closes the state after, whatever happens. */
export async function withOperator<T>(
  terminal: Terminal,
  configPath: string | undefined,
  use: (deps: OperatorDeps, state: StateStore) => Promise<T> | T,
): Promise<T> {
  const config = loadConfig({ path: configPath, env: terminal.env, cwd: terminal.cwd });
  const file = config.state.path;
  const state = StateStore.open(file, { existing: true });
  try {
    const local = new FsLocalStore({
      root: config.store.root,
      ignore: [...config.ignore],
      settleSeconds: config.settleSeconds,
      metaCache: state.metaFiles,
    });
    return await use(
      {
        state,
        local,
        webUrl: config.service.webUrl,
        onRemoteDelete: config.onRemoteDelete,
        now: Date.now,
        // This process's own: a command changes the store only alone (under the instance lock).
        locks: new EntityLocks(),
      },
      state,
    );
  } catch (error) {
    throw explainStateFailure(error, file);
  } finally {
    state.close();
  }
}

/** An entity as the lists name it: by its name, with the id the commands take. */
export function nameOf(deps: OperatorDeps): (owner: OwnerRef) => string {
  return (owner) => entityLabel(owner, deps.state.entities.get(owner)?.entity.name);
}

/**
 * Carries out a person's decision where the store is: itself under the instance lock when no
 * docsync runs, else through the running one (see the header). Resolves with the result; a
 * refusal throws its OperatorError, as carrying it out here would have.
 */
export function decide<K extends DecisionRequest['kind']>(
  terminal: Terminal,
  configPath: string | undefined,
  request: Extract<DecisionRequest, { kind: K }>,
): Promise<DecisionResult<K>> {
  return withOperator(terminal, configPath, async (deps, state) => {
    const outcome = (await outcomeOf(terminal, deps, state, request)) as DecisionOutcome<K>;
    if (!outcome.ok) throw refusalError(outcome);
    return outcome.result;
  });
}

async function outcomeOf(
  terminal: Terminal,
  deps: OperatorDeps,
  state: StateStore,
  request: DecisionRequest,
): Promise<DecisionOutcome> {
  const alone = await ifAlone(state, () => carryOutDecision(deps, request, rightAway(deps)));
  if (alone !== null) return alone;
  const id = state.operatorDecisions.record(request.kind, encodeRequest(request), Date.now());
  const startedAt = Date.now();
  let said = false;
  for (;;) {
    const outcome = outcomeRecorded(state, id, request);
    if (outcome) return outcome;
    // The daemon stopped meanwhile: this command has the store now, and does it itself.
    const itself = await ifAlone(state, async () => {
      const meanwhile = outcomeRecorded(state, id, request);
      if (meanwhile) return meanwhile;
      const done = await carryOutDecision(deps, request, rightAway(deps));
      state.operatorDecisions.finish(id, encodeOutcome(request.kind, done), Date.now());
      return done;
    });
    if (itself !== null) return itself;
    const waited = Date.now() - startedAt;
    if (!said && waited > SAY_WAITING_AFTER_MS) {
      said = true;
      const holder = InstanceLock.holder(state.db);
      terminal.stderr.write(
        `docsync: the running docsync${holder ? ` (pid ${holder.pid} on ${holder.hostname})` : ''} carries this out between the syncs of the company or trust it concerns; waiting for it (Ctrl-C stops waiting; the decision stays recorded and is carried out)
`,
      );
    }
    if (waited > MAX_WAIT_MS)
      throw new OperatorError(
        'DECISION_WAITING',
        `The decision is recorded (number ${id}), but the running docsync has not carried it out in ${MAX_WAIT_MS / 60_000} minutes; it will, once the sync it waits for ends. \`docsync status\` shows what runs.`,
      );
    await sleep(POLL_MS);
  }
}

/** Runs `act` holding the instance lock when nobody else holds it; null when someone does. */
async function ifAlone<T>(state: StateStore, act: () => Promise<T>): Promise<T | null> {
  const lock = InstanceLock.tryAcquire(state.db);
  if (lock === null) return null;
  try {
    return await act();
  } finally {
    lock.release();
  }
}

function outcomeRecorded(
  state: StateStore,
  id: number,
  request: DecisionRequest,
): DecisionOutcome | null {
  const row = state.operatorDecisions.get(id);
  return row?.outcomeJson ? decodeOutcome(request.kind, row.outcomeJson) : null;
}

/** JSON on stdout, for scripts and `jq`. */
export function printJson(terminal: Terminal, value: unknown): void {
  terminal.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Text for a person; the commands it names in the form that runs here (advice-here.ts). */
export function print(
  terminal: Terminal,
  configPath: string | undefined,
  lines: readonly string[],
): void {
  const advice = adviceFormHere(terminal, configPath);
  terminal.stdout.write(lines.length > 0 ? inAdviceForm(`${lines.join('\n')}\n`, advice) : '');
}
