/**
 * `docsync check` on the folder: can this user read and write `store.root`, is it the store it
 * was (its `.docsync-root` marker), which filesystem holds it (a network share gets no change
 * events from other machines), and are there inotify watches enough for every folder the
 * watcher would watch. Everything here only looks: nothing is created, written or moved.
 */
import { constants } from 'node:fs';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { type CheckLine, fail, ok, warn } from '../domain/check-lines.js';
import { otherService } from '../domain/service-identity.js';
import { filesystemKind } from './filesystem-kind.js';
import { isIgnored } from './ignore.js';
import { MARKER_FILE, STATE_DIR, TMP_DIR, TRASH_DIR } from './local-store.js';
import { readMarker, serviceInMarker } from './root-marker.js';

export interface StoreCheckInput {
  readonly root: string;
  readonly ignore: readonly string[];
  /** From the state database; null when there is none to ask. */
  readonly initialSyncDone: boolean | null;
  /** `service.baseUrl`: the service `.docsync-root` should name. */
  readonly baseUrl: string;
  readonly scanIntervalSeconds: number;
  /** Where the limit is read (tests point it elsewhere); default the kernel's. */
  readonly maxUserWatchesFile?: string;
  readonly platform?: NodeJS.Platform;
}

/** Where the OS watches a whole tree itself (folder-tree-watch.ts): one watch, no limit to mind. */
const NATIVE_RECURSIVE = new Set<string>(['darwin', 'win32']);
/** Past this share of the limit a warning: other programs of the user take watches too. */
const WATCH_SHARE_WARNING = 0.8;

export async function checkStore(input: StoreCheckInput): Promise<CheckLine[]> {
  const kind = await stat(input.root).catch((error: NodeJS.ErrnoException) => error);
  if (kind instanceof Error) {
    return [await missingRoot(input, kind), await watchLine(input, null)];
  }
  if (!kind.isDirectory()) {
    return [
      fail(
        'store folder',
        `store.root ${input.root} is a file, not a folder`,
        'Point store.root at the folder that holds (or will hold) Companies/ and Trusts/.',
      ),
    ];
  }
  return [
    await accessLine(input.root),
    await markerLine(input),
    await filesystemLine(input),
    await watchLine(input, await countWatchedFolders(input.root, input.ignore)),
  ];
}

async function missingRoot(
  input: StoreCheckInput,
  error: NodeJS.ErrnoException,
): Promise<CheckLine> {
  if (error.code !== 'ENOENT') {
    return fail(
      'store folder',
      `store.root ${input.root} cannot be read (${error.code ?? error.message})`,
      `Give ${whoAmI()} access to it.`,
    );
  }
  if (input.initialSyncDone) {
    return fail(
      'store folder',
      `store.root ${input.root} does not exist, but this store was synced before`,
      'An unmounted share or a moved folder? Mount it or correct store.root; docsync refuses to run without it (exit 2).',
    );
  }
  const parent = path.dirname(input.root);
  if (await can(parent, constants.W_OK | constants.X_OK)) {
    return ok(
      'store folder',
      `store.root ${input.root} does not exist yet; the first run makes it`,
    );
  }
  return fail(
    'store folder',
    `store.root ${input.root} does not exist, and ${whoAmI()} cannot make it in ${parent}`,
    `Create ${input.root} and give ${whoAmI()} read and write access to it.`,
  );
}

async function accessLine(root: string): Promise<CheckLine> {
  const rwx = constants.R_OK | constants.W_OK | constants.X_OK;
  const folders = [root, ...[STATE_DIR, TMP_DIR, TRASH_DIR].map((f) => path.join(root, f))];
  for (const folder of folders) {
    const exists = await stat(folder).then(
      () => true,
      () => false,
    );
    if (exists && !(await can(folder, rwx))) {
      return fail(
        'store folder',
        `${folder} is not readable and writable by ${whoAmI()}`,
        `Give ${whoAmI()} read and write access (chown -R, or a group or ACL that allows it), as docs/operating.md, "Running under systemd", shows.`,
      );
    }
  }
  return ok('store folder', `${root} is readable and writable by ${whoAmI()}`);
}

async function markerLine(input: StoreCheckInput): Promise<CheckLine> {
  const marker = path.join(input.root, MARKER_FILE);
  if (
    await stat(marker).then(
      () => true,
      () => false,
    )
  ) {
    const other = otherService(
      { kind: 'folder', root: input.root },
      serviceInMarker((await readMarker(input.root)) ?? ''),
      input.baseUrl,
    );
    if (other) {
      return fail(
        'store marker',
        `${marker} says the folder was synced with ${other.recorded}, not with ${other.configured}; docsync refuses to run on it`,
        `Set service.environment (or service.baseUrl) back to ${other.recorded}, or give ${other.configured} its own store.root and state.path (docs/real-service.md, "A state of another service").`,
      );
    }
    return ok('store marker', `${MARKER_FILE} marks a synced store`);
  }
  if (input.initialSyncDone) {
    return fail(
      'store marker',
      `${marker} is missing although this store was synced before, so docsync will refuse to run (exit 2)`,
      'Is store.root an unmounted mount point or the wrong folder? Mount or correct it; never recreate the marker by hand over an empty folder.',
    );
  }
  return ok('store marker', `${MARKER_FILE} is not there yet; the first run writes it`);
}

async function filesystemLine(input: StoreCheckInput): Promise<CheckLine> {
  const fs = await filesystemKind(input.root);
  if (!fs)
    return warn(
      'filesystem',
      `cannot tell which filesystem holds ${input.root}`,
      'statfs failed; docsync assumes a local disk.',
    );
  if (!fs.network)
    return ok('filesystem', `${input.root} is on a local filesystem (${fs.type})`, {
      type: fs.type,
      network: false,
    });
  return warn(
    'filesystem',
    `${input.root} is on a network filesystem (${fs.type}): the OS reports no change made from another machine`,
    `docsync finds those by scanning every entity folder every watcher.scanIntervalSeconds (${input.scanIntervalSeconds} s); lower it if they should arrive sooner.`,
    { type: fs.type, network: true },
  );
}

/** Inotify (Linux): one watch per folder (folder-tree-watch.ts), against the user's limit. */
async function watchLine(input: StoreCheckInput, needed: number | null): Promise<CheckLine> {
  const platform = input.platform ?? process.platform;
  if (NATIVE_RECURSIVE.has(platform))
    return ok('folder watches', 'the OS watches the whole tree with one recursive watch');
  const file = input.maxUserWatchesFile ?? '/proc/sys/fs/inotify/max_user_watches';
  const limit = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(limit) || limit <= 0) {
    return warn(
      'inotify watches',
      `cannot read the limit from ${file}`,
      'Without watches docsync finds changes by its periodic scans only.',
    );
  }
  if (needed === null)
    return ok('inotify watches', `${limit} allowed per user; the store does not exist yet`, {
      limit,
    });
  const data = { limit, needed };
  const raise = Math.max(524_288, 2 ** Math.ceil(Math.log2(needed * 2)));
  const hint = `Raise it: sudo sysctl fs.inotify.max_user_watches=${raise}, and put the same line in /etc/sysctl.d/60-docsync.conf so it survives a reboot.`;
  if (needed > limit) {
    return warn(
      'inotify watches',
      `the store has ${needed} folders to watch but the limit is ${limit}: the watcher will fall back to scanning`,
      hint,
      data,
    );
  }
  if (needed > limit * WATCH_SHARE_WARNING) {
    return warn(
      'inotify watches',
      `the store needs ${needed} of the ${limit} watches allowed, and other programs of the user share them`,
      hint,
      data,
    );
  }
  return ok(
    'inotify watches',
    `the store needs ${needed} of the ${limit} allowed (one per folder)`,
    data,
  );
}

/** The folders the watcher would watch: every one under the root but `.docsync/` and ignored. */
export async function countWatchedFolders(
  root: string,
  ignore: readonly string[],
): Promise<number> {
  let count = 0;
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    count += 1;
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (child === STATE_DIR || isIgnored(child, ignore)) continue;
      pending.push(child);
    }
  }
  return count;
}

function can(file: string, mode: number): Promise<boolean> {
  return access(file, mode).then(
    () => true,
    () => false,
  );
}

function whoAmI(): string {
  const { username, uid } = userInfo();
  return uid >= 0 ? `user ${username} (uid ${uid})` : `user ${username}`;
}
