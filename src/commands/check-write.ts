/**
 * `docsync check --write ENTITY`: proves every route that writes, on staging, before a firm's
 * documents depend on them (write-proof.ts). It changes the service, so it asks first (or takes
 * `--yes`), and it refuses production unless `--allow-production` says so: a test document in a
 * real client's file is not a thing to make by accident. It first removes what an interrupted
 * proof left in the service (engine/proof-leftovers.ts).
 *
 * It may run at any moment, before the first run too, and makes nothing in the firm's folder
 * until a run has set the folder up (its `.docsync-root`): before that, the copies of what it
 * deletes go to a folder beside the state database (`proofCopies`). A store root it made would
 * be harmless to the next run (that goes by the state and the marker, not by the folder being
 * there), but the root is the firm's to place: a share not mounted yet, a folder whose owner
 * and mode the install sets, are not for a check to create.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { clientOptions, localStore } from '../compose.js';
import type { Config } from '../config/schema.js';
import { SERVICE_ENVIRONMENTS } from '../config/service-environments.js';
import { type CheckLine, fail, ok, warn } from '../domain/check-lines.js';
import { type Clock, REAL_CLOCK } from '../domain/clock.js';
import { DocsyncError } from '../domain/errors.js';
import { findEntity } from '../domain/find-entity.js';
import { serviceKey } from '../domain/service-identity.js';
import type { Entity } from '../domain/types.js';
import { leftoverSentence } from '../domain/write-proofs.js';
import { removeProofLeftovers } from '../engine/proof-leftovers.js';
import { FsLocalStore } from '../local/fs-local-store.js';
import type { LocalStore } from '../local/local-store.js';
import { createRemote, type Remote } from '../remote/create-client.js';
import type { ResponseInfo } from '../remote/service-http.js';
import type { Transcript } from '../remote/transcript.js';
import { openState } from '../state/open-state.js';
import type { StateStore } from '../state/state-store.js';
import type { Terminal } from './terminal.js';
import { proveWrites } from './write-proof.js';

export interface WriteCheckOptions {
  /** The company or trust to write in: its id or name (`docsync open`'s rules). */
  readonly entity: string;
  /** Go on without asking. */
  readonly yes: boolean;
  /** Run against production too. */
  readonly allowProduction: boolean;
  readonly transcript?: Transcript | undefined;
  /** Asks the operator (`askOnTerminal`). */
  readonly confirm: (question: string) => Promise<boolean>;
  /** The command's clock. */
  readonly clock: Clock;
}

const TOPIC = 'check --write';

export async function checkWrites(
  config: Config,
  options: WriteCheckOptions,
): Promise<CheckLine[]> {
  if (isProduction(config) && !options.allowProduction) {
    return [
      fail(
        TOPIC,
        `refused: ${config.service.baseUrl} is production, and this makes and deletes a test document there`,
        'Run it against staging (service.environment "staging"); to run it on production anyway, add --allow-production.',
      ),
    ];
  }
  let state: StateStore;
  try {
    state = openState(config, { existing: true, upgrade: false, sameService: true });
  } catch (error) {
    if (!(error instanceof DocsyncError)) throw error;
    return [fail(TOPIC, error.message, 'Run `docsync auth login` first (and `docsync check`).')];
  }
  const answers: ResponseInfo[] = [];
  const remote = createRemote({
    ...clientOptions(config),
    time: REAL_CLOCK,
    tokenStore: state.tokens,
    prefixStore: state.settings,
    transcript: options.transcript,
    onResponse: (info) => answers.push(info),
  });
  try {
    const entity = await resolveEntity(state, remote, options.entity);
    if (typeof entity === 'string')
      return [fail(TOPIC, entity, 'Name one company or trust by its id.')];
    const where = `${entity.kind} ${entity.name} (${entity.id}) on ${config.service.baseUrl}`;
    const copies = await proofCopies(config, state, options.clock);
    const question =
      `This creates a test document in ${where}, uploads a file to it, downloads it back, assigns a ` +
      `status, then deletes the file and the document (their copies kept in ${copies.trashName}). Go on? [y/N] `;
    if (!options.yes && !(await options.confirm(question))) {
      return [
        fail(TOPIC, `not confirmed: nothing was written to ${where}`, 'Answer y, or add --yes.'),
      ];
    }
    await copies.make();
    const leftovers = await removeProofLeftovers({
      remote: remote.client,
      proofs: state.writeProofs,
      now: () => options.clock.now(),
    });
    const proof = await proveWrites(
      {
        client: remote.client,
        http: remote.http,
        local: copies.local,
        trashName: copies.trashName,
        answers,
        baseUrl: config.service.baseUrl,
        webUrl: config.service.webUrl,
        entityFolder: copies.inStore ? (state.entities.get(entity)?.folder ?? null) : null,
        proofs: state.writeProofs,
        now: () => new Date(),
      },
      entity,
    );
    await copies.sweep();
    return [...leftovers.flatMap(leftoverLine), ...proof];
  } catch (error) {
    if (!(error instanceof DocsyncError)) throw error;
    return [
      fail(TOPIC, error.message, 'See the message; `docsync check` says more about the service.'),
    ];
  } finally {
    remote.queue.clear();
    state.close();
  }
}

/** A leftover an earlier proof left, as the check's line; none when there was nothing to remove. */
function leftoverLine(outcome: Parameters<typeof leftoverSentence>[0]): CheckLine[] {
  const sentence = leftoverSentence(outcome);
  if (sentence === null) return [];
  const topic = 'earlier test document';
  if (outcome.result === 'removed') return [ok(topic, sentence)];
  const hint =
    outcome.result === 'failed'
      ? 'It stays recorded, so no sync pulls it; see the message.'
      : 'It is a document like any other now: the sync pulls it.';
  return [warn(topic, sentence, hint)];
}

interface ProofCopies {
  readonly local: LocalStore;
  /** Where the copies are, as a line names it. */
  readonly trashName: string;
  /** The firm's folder: copies go under the entity's folder in its trash. */
  readonly inStore: boolean;
  /** Makes the folder beside the state, once the proof is to run. */
  make(): Promise<void>;
  /** Old copies of the folder beside the state go after the trash's days, as the store's do. */
  sweep(): Promise<void>;
}

/**
 * Where the proof keeps the copies of what it deletes: the store's trash once a run has set the
 * store up (its `.docsync-root` is there); before that, or with the marker missing (a share not
 * mounted), a folder `check-write/` beside the state database, which the proof makes (`make`).
 */
async function proofCopies(config: Config, state: StateStore, clock: Clock): Promise<ProofCopies> {
  const store = localStore({ config, state, clock });
  // A root that cannot be used is `docsync check`'s to report; the proof keeps out of it.
  if (await store.hasMarker().catch(() => false)) {
    const nothing = async () => {};
    return {
      local: store,
      trashName: '.docsync/trash/',
      inStore: true,
      make: nothing,
      sweep: nothing,
    };
  }
  const root = path.join(path.dirname(path.resolve(config.state.path)), 'check-write');
  const local = new FsLocalStore({ root, now: () => new Date(clock.now()) });
  return {
    local,
    trashName: `${path.join(root, '.docsync', 'trash')}/`,
    inStore: false,
    make: async () => {
      await mkdir(root, { recursive: true, mode: 0o700 }).catch((error: Error) => {
        throw new DocsyncError(
          'CHECK_COPY_FOLDER',
          `cannot make ${root}, where check --write keeps its copies until the first run has set the folder up (${error.message}); nothing was written to the service`,
        );
      });
    },
    // Housekeeping: a sweep that fails now is tried again by the next check.
    sweep: () =>
      local.sweepTrash().then(
        () => undefined,
        () => undefined,
      ),
  };
}

/** `service.environment` production, or its base URL. */
function isProduction(config: Config): boolean {
  return (
    config.service.environment === 'production' ||
    serviceKey(config.service.baseUrl) === serviceKey(SERVICE_ENVIRONMENTS.production.baseUrl)
  );
}

/** The entity by id or name: docsync's own list first, then the service's; a sentence if not one. */
async function resolveEntity(
  state: StateStore,
  remote: Remote,
  query: string,
): Promise<Entity | string> {
  let match = findEntity(
    state.entities.list().map((r) => r.entity),
    query,
  );
  if (match.kind === 'none') {
    const listed: Entity[] = [];
    for await (const e of remote.client.companies()) if (!('malformed' in e)) listed.push(e);
    for await (const e of remote.client.trusts()) if (!('malformed' in e)) listed.push(e);
    match = findEntity(listed, query);
  }
  if (match.kind === 'one') return match.entity;
  if (match.kind === 'none') return `no company or trust has the id or name "${query}"`;
  const names = match.candidates.map((e) => `${e.kind} ${e.id} ${e.name}`).join('; ');
  return `"${query}" names ${match.candidates.length}: ${names}`;
}

/** A question on the terminal's stderr, answered on its stdin; refused where there is none. */
export async function askOnTerminal(terminal: Terminal, question: string): Promise<boolean> {
  if (!terminal.stdin.isTTY) {
    throw new DocsyncError(
      'CHECK_WRITE_UNCONFIRMED',
      'check --write changes the service and asks first, but there is no terminal to ask on: add --yes',
    );
  }
  const rl = createInterface({ input: terminal.stdin, output: terminal.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
