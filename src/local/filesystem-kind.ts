/**
 * Which filesystem the store's root is on, read with statfs. On a network filesystem (CIFS/SMB,
 * NFS, FUSE mounts such as sshfs) the OS's change events never report what other machines
 * write, and one listing can take seconds: there docsync scans on an interval and walks
 * asynchronously.
 */
import { statfs } from 'node:fs/promises';

export interface FilesystemKind {
  readonly network: boolean;
  /** A name for the log and the status page: `cifs`, `nfs`, `fuse`, or the magic in hex. */
  readonly type: string;
}

/** statfs `f_type` magic numbers of the network filesystems Linux reports (linux/magic.h). */
const NETWORK_TYPES: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x01021997, '9p'],
  [0x47504653, 'gpfs'],
  [0x0bd00bd0, 'lustre'],
  [0x00c36400, 'ceph'],
]);

/** Names of the usual local ones, for people; any other shows its magic in hex. */
const LOCAL_TYPES: ReadonlyMap<number, string> = new Map([
  [0xef53, 'ext2/3/4'],
  [0x58465342, 'xfs'],
  [0x9123683e, 'btrfs'],
  [0x2fc12fc1, 'zfs'],
  [0x01021994, 'tmpfs'],
  [0x794c7630, 'overlayfs'],
]);

/** Null when the root cannot be read yet (the first sync makes it). */
export async function filesystemKind(root: string): Promise<FilesystemKind | null> {
  try {
    const { type } = await statfs(root);
    const network = NETWORK_TYPES.get(type);
    return network
      ? { network: true, type: network }
      : { network: false, type: LOCAL_TYPES.get(type) ?? `0x${type.toString(16)}` };
  } catch {
    return null;
  }
}
