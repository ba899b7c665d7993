/**
 * One error hierarchy for the whole daemon (style guide §6). Every error carries a stable `code`
 * that logs, the status page and tests can match on, and the exit code `--once` should end with
 * when the error reaches the top. Heavy context (responses, causes) goes on non-enumerable
 * properties so a logged error stays small.
 */
import { ExitCode } from './exit-codes.js';

export class DocsyncError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;

  constructor(
    code: string,
    message: string,
    options: { cause?: unknown; exitCode?: ExitCode } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.CouldNotRun;
    if (options.cause !== undefined) {
      Object.defineProperty(this, 'cause', { value: options.cause, enumerable: false });
    }
  }
}

export interface ConfigProblem {
  /** Dotted key, e.g. `queue.concurrency`; empty for the file as a whole. */
  readonly key: string;
  readonly message: string;
}

/** Bad configuration: every problem at once, each with its key. */
export class ConfigError extends DocsyncError {
  readonly problems: readonly ConfigProblem[];

  /** `message`: one sentence instead of the list, when there is no file to list problems of. */
  constructor(
    readonly source: string,
    problems: readonly ConfigProblem[],
    message?: string,
  ) {
    const lines = problems.map((p) => `  - ${p.key ? `${p.key}: ` : ''}${p.message}`);
    super(
      message === undefined ? 'CONFIG_INVALID' : 'CONFIG_MISSING',
      message ?? `Invalid configuration (${source}):\n${lines.join('\n')}`,
    );
    this.problems = problems;
  }
}

/** The state database cannot be used: written by a newer docsync, or corrupt. */
export class StateError extends DocsyncError {}

/**
 * The state database is at another schema than this docsync writes: `STATE_TOO_NEW` (a newer
 * docsync wrote it; never downgraded), or `STATE_TOO_OLD` for a command that opens it as it is
 * and leaves the upgrade to `docsync run`.
 */
export class StateSchemaError extends StateError {
  constructor(
    code: 'STATE_TOO_OLD' | 'STATE_TOO_NEW',
    readonly file: string,
    /** The file's schema version. */
    readonly version: number,
    /** The newest version this docsync knows. */
    readonly known: number,
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * What went wrong with the state file, which decides what the operator is told to do. `path`:
 * `state.path` cannot name a file (a part of it is a file, or it is a folder).
 */
export type StateFailureKind = 'full' | 'io' | 'access' | 'corrupt' | 'path';

const STATE_FAILURE_CODES: Readonly<Record<StateFailureKind, string>> = {
  full: 'STATE_DISK_FULL',
  io: 'STATE_IO_ERROR',
  access: 'STATE_NOT_WRITABLE',
  corrupt: 'STATE_CORRUPT',
  path: 'STATE_PATH_INVALID',
};

/**
 * SQLite could not read or write the state file (disk full, I/O error, read-only, damaged).
 * Nothing a sync does can be recorded then, so syncing on would lose track of what was done:
 * the daemon reports it on `/healthz` and stops, a command exits 1. The message is the one
 * sentence the operator sees: the file, SQLite's error, and what to do.
 */
export class StateFailureError extends StateError {
  readonly file: string;
  readonly kind: StateFailureKind;
  /**
   * SQLite's (extended) result code, e.g. `SQLITE_FULL`, `SQLITE_IOERR_WRITE`; or the system's
   * (`EACCES`, `ENOTDIR`) when the file or its folder could not be made.
   */
  readonly causeCode: string;

  constructor(
    file: string,
    kind: StateFailureKind,
    causeCode: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(STATE_FAILURE_CODES[kind], message, options);
    this.file = file;
    this.kind = kind;
    this.causeCode = causeCode;
  }
}

/** Another docsync process holds the state database. */
export class LockHeldError extends DocsyncError {
  constructor(message: string) {
    super('LOCK_HELD', message);
  }
}

/**
 * Work that changes an entity's folder or state was handed a lease that is not the entity's
 * current one (released, another entity's, another table's): it is refused before anything
 * changes. A bug in docsync, never a person's doing nor a condition to retry.
 */
export class EntityNotHeldError extends DocsyncError {
  constructor(
    readonly owner: string,
    readonly step: string,
    reason: string,
  ) {
    super(
      'ENTITY_NOT_HELD',
      `Refused to ${step} on ${owner} without its lock (${reason}); nothing was changed.`,
    );
  }
}

/**
 * A path that would leave the store's root (`../x`, an absolute path, a symlink out). Raised by
 * the guard every local file operation goes through; it means a bug or a hostile name, never a
 * condition to retry.
 */
export class PathEscapeError extends DocsyncError {
  readonly root: string;
  readonly path: string;

  constructor(root: string, path: string) {
    super('PATH_ESCAPE', `Refusing a path outside the document folder: ${JSON.stringify(path)}`);
    this.root = root;
    this.path = path;
  }
}

/**
 * The service refused a push (a 4xx: a file over its size limit, a value it will not take). It
 * applied nothing, and the same push would be refused again: the item is reported, and waits
 * until what it pushes changes or until `retryAt`, while the document's other changes go on.
 * `fresh`: refused just now, rather than still waiting out an earlier refusal.
 */
export class PushRejectedError extends DocsyncError {
  constructor(
    message: string,
    readonly retryAt: number,
    readonly fresh: boolean,
    cause?: unknown,
  ) {
    super('PUSH_REJECTED', message, { cause, exitCode: ExitCode.PartialFailure });
  }
}

/**
 * The run was told to stop (Ctrl-C, SIGTERM during `--once`): a request that was never sent, or
 * one cut while in flight. It says nothing about the item, so nothing is recorded as in error: the
 * next run does what this one left. `mayHaveApplied`: the request had left, and a push it carried
 * stays in doubt, settled by the next run as after a crash.
 */
export class RunStoppedError extends DocsyncError {
  constructor(
    message: string,
    readonly mayHaveApplied: boolean,
  ) {
    super('RUN_STOPPED', message, { exitCode: ExitCode.Interrupted });
  }
}

/**
 * A local write found its target changed since the scan the plan came from (a person edited,
 * added or removed something meanwhile): the write did not happen. Not a failure of the
 * document: the action is dropped and the document planned again from a new scan, which sees
 * the change (as Unison aborts a transfer whose target changed during the synchronization).
 */
export class LocalChangedError extends DocsyncError {
  constructor(
    readonly path: string,
    message = `${path} changed during the sync; it is planned again`,
    code = 'LOCAL_CHANGED',
  ) {
    super(code, message, { exitCode: ExitCode.PartialFailure });
  }
}

/**
 * What a delete in the service was about is in the folder again, seen just before the request
 * would have gone: the folder (or file) was put back while the delete was carried out (its
 * hold ended, a person approved it, the service's copy was being saved to the trash). The
 * delete is not sent; the document is planned again from a new scan and synced as it stands.
 * Likewise a document folder about to be downloaded again (`restore`: rows 9 and 53) that was
 * put back meanwhile: a second folder is not placed beside it.
 */
export class PutBackError extends LocalChangedError {
  constructor(path: string, what: 'folder' | 'file', undone: 'delete' | 'restore' = 'delete') {
    const thing = what === 'folder' ? 'the folder' : 'the file';
    super(
      path,
      undone === 'delete'
        ? `${thing} is back in the store (${path}): its delete in the service is cancelled, not sent; it is synced as it stands`
        : `${thing} is back in the store (${path}): it is not downloaded again beside it; it is synced as it stands`,
    );
  }
}

/**
 * A file about to be uploaded is not one docsync sends: a symbolic link, a special file, a file
 * reached through a folder outside the document folder, or another file than the one opened for
 * the upload's first attempt. Any file docsync can read must not reach the service because a
 * name in the folder was pointed at it. Nothing was sent; as for any change during a sync, the
 * document is planned again, and the scan reports what the name is now.
 */
export class UploadRefusedError extends LocalChangedError {
  constructor(
    path: string,
    readonly reason: string,
  ) {
    super(
      path,
      `${path} ${reason}: docsync uploads only regular files inside the document folder, ` +
        'opened without following links; nothing was sent, and the document is planned again',
      'UPLOAD_REFUSED',
    );
  }
}

/**
 * A document about to be deleted in the service changed there since the agreed state (an
 * attachment added, a status set, while the plan to delete it waited): the delete is not sent.
 * Modify beats delete: the document is planned again, and the plan brings the change down.
 * Likewise a status about to be pushed over one a service user set since the plan: the newer
 * change is judged by the next plan, not overwritten (`planned: 'status'`).
 */
export class RemoteChangedError extends DocsyncError {
  constructor(
    readonly documentId: string,
    planned: 'deletion' | 'status' = 'deletion',
  ) {
    super(
      'REMOTE_CHANGED',
      planned === 'deletion'
        ? `document ${documentId} changed in the service since it was planned for deletion; it is not deleted, and is planned again`
        : `document ${documentId} got another status in the service since its status push was planned; the status is not pushed, and the document is planned again`,
      { exitCode: ExitCode.PartialFailure },
    );
  }
}

/**
 * The service created a document from a new folder, and the folder is not in its entity folder
 * any more (moved out, or removed, while the create was under way): its `.document.json` could
 * not be written. The create stays recorded under the document's id, which is not pulled as a
 * new folder meanwhile; the folder is linked by its identity on disk once it is back.
 */
export class CreatedFolderMissingError extends DocsyncError {
  constructor(
    readonly documentId: string,
    readonly folder: string,
  ) {
    super(
      'CREATED_FOLDER_MISSING',
      `document ${documentId} was created in the service from ${folder}, which was moved out of its entity folder or removed meanwhile; it is linked to the folder once it is back there`,
      { exitCode: ExitCode.PartialFailure },
    );
  }
}

/** A local store operation that cannot be done as asked (e.g. placing over a folder). */
export class LocalStoreError extends DocsyncError {}

/**
 * An operator's command that cannot be done as asked (`docsync conflicts`, `trash`, `deletes`):
 * an id that names nothing, a choice that does not fit, a file that is no longer there. Nothing
 * was changed; the message says what to do instead. `notFound`: there is no such thing (any
 * more), which the status page answers with 404; anything else it refuses (409).
 */
export class OperatorError extends DocsyncError {
  readonly notFound: boolean;
  /**
   * The same refusal in the status page's words, where the message names a command (the page
   * has buttons, and "run `docsync conflicts resolve 3 keep-both`" is no help there).
   */
  readonly onPage: string;

  constructor(
    code: string,
    message: string,
    options: { notFound?: boolean; onPage?: string } = {},
  ) {
    super(code, message);
    this.notFound = options.notFound ?? false;
    this.onPage = options.onPage ?? message;
  }
}

/**
 * `store.root` cannot hold the documents: it is a file, a part of its path is one, or docsync
 * may not read and write it. Nothing can be synced until a person fixes the path or its
 * permissions, so a command stops with it and the daemon does not start.
 */
export class StoreRootError extends DocsyncError {
  readonly root: string;

  constructor(root: string, message: string, options: { cause?: unknown } = {}) {
    super('STORE_ROOT_UNUSABLE', message, options);
    this.root = root;
  }
}

/**
 * A listener could not take its address (`webhook.listen`, `status.listen`, the redirect of
 * `auth login`): in use by another program, a privileged port, an address of another machine.
 */
export class ListenError extends DocsyncError {
  /** The configuration key that names the address. */
  readonly key: string;
  readonly address: string;

  constructor(key: string, address: string, message: string, options: { cause?: unknown } = {}) {
    super('LISTEN_FAILED', message, options);
    this.key = key;
    this.address = address;
  }
}

/**
 * Why a download link is not fetched: `scheme`, not http(s) at all; `not-https`, plain http to
 * a host not listed in `service.linkHosts`; `not-listed`, an origin outside `service.linkHosts`
 * when it is set; `private-address`, a host that is (or resolves to) a loopback, private,
 * link-local or other non-public address, unlisted; `own-listener`, a port of docsync's own
 * listeners on this machine, listed or not; `redirects`, more redirects than docsync follows.
 */
export type LinkRule =
  | 'scheme'
  | 'not-https'
  | 'not-listed'
  | 'private-address'
  | 'own-listener'
  | 'redirects';

/**
 * A download link the service handed out points where links may not live (the status page on
 * loopback, a host inside the firm's network, a redirect to either): nothing is fetched from
 * it, and no file is written. Not retried: the same link would be refused again. `origin` is the
 * refused link's (or redirect's) scheme, host and port; `address`, what the host resolved to.
 */
export class LinkRefusedError extends DocsyncError {
  constructor(
    readonly origin: string,
    readonly rule: LinkRule,
    message: string,
    readonly address?: string,
  ) {
    super('LINK_REFUSED', message, { exitCode: ExitCode.PartialFailure });
  }

  /** The same refusal, its message starting with what the link was for (`attachment UA12`). */
  about(subject: string): LinkRefusedError {
    return new LinkRefusedError(
      this.origin,
      this.rule,
      `${subject}: ${this.message}`,
      this.address,
    );
  }
}
