/**
 * One docsync per state database (and so per store): a row with owner, pid and expiry, renewed
 * by a heartbeat. A lock whose holder is gone (expired, or its pid dead on this host) is taken
 * over, so a daemon killed with SIGKILL does not block its successor for long.
 */
import { randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { LockHeldError } from '../domain/errors.js';
import type { Database } from './open-database.js';

export interface InstanceLockOptions {
  readonly ttlMs?: number;
  readonly pid?: number;
  readonly hostname?: string;
  readonly now?: () => number;
  readonly isAlive?: (pid: number) => boolean;
}

interface LockRow {
  owner: string;
  pid: number;
  hostname: string;
  expires_at: number;
}

export class InstanceLock {
  readonly owner = randomUUID();
  #heartbeat: NodeJS.Timeout | undefined;

  private constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  static acquire(db: Database, options: InstanceLockOptions = {}): InstanceLock {
    const lock = new InstanceLock(db, options.ttlMs ?? 60_000, options.now ?? Date.now);
    const pid = options.pid ?? process.pid;
    const host = options.hostname ?? osHostname();
    const isAlive = options.isAlive ?? processIsAlive;

    db.transaction(() => {
      const held = db.prepare('SELECT * FROM instance_lock WHERE id = 1').get() as
        | LockRow
        | undefined;
      const now = lock.now();
      if (held && held.expires_at > now && !(held.hostname === host && !isAlive(held.pid))) {
        throw new LockHeldError(
          `Another docsync (pid ${held.pid} on ${held.hostname}) is using ${db.name} until ` +
            `${new Date(held.expires_at).toISOString()}. Two daemons must never share one store; ` +
            'stop the other one first.',
        );
      }
      db.prepare(
        `INSERT OR REPLACE INTO instance_lock (id, owner, pid, hostname, acquired_at, expires_at)
         VALUES (1, ?, ?, ?, ?, ?)`,
      ).run(lock.owner, pid, host, now, now + lock.ttlMs);
    }).immediate();
    return lock;
  }

  /**
   * The lock now, or null when nobody can hold it now (free, expired, or its process gone on
   * this host): `acquire` would then succeed.
   */
  static tryAcquire(db: Database, options: InstanceLockOptions = {}): InstanceLock | null {
    try {
      return InstanceLock.acquire(db, options);
    } catch (error) {
      if (error instanceof LockHeldError) return null;
      throw error;
    }
  }

  /** Who holds the lock (pid and host), or null when nobody does. */
  static holder(db: Database): { readonly pid: number; readonly hostname: string } | null {
    const row = db.prepare('SELECT pid, hostname FROM instance_lock WHERE id = 1').get() as
      | Pick<LockRow, 'pid' | 'hostname'>
      | undefined;
    return row ? { pid: row.pid, hostname: row.hostname } : null;
  }

  /** Pushes the expiry forward; throws if another process took the lock meanwhile. */
  renew(): void {
    const { changes } = this.db
      .prepare('UPDATE instance_lock SET expires_at = ? WHERE id = 1 AND owner = ?')
      .run(this.now() + this.ttlMs, this.owner);
    if (changes === 0) {
      throw new LockHeldError(`The lock on ${this.db.name} was taken over by another process.`);
    }
  }

  /** Renews every third of the TTL; `onLost` hears if the lock was taken from us. */
  startHeartbeat(onLost: (error: Error) => void): void {
    this.#heartbeat ??= setInterval(
      () => {
        try {
          this.renew();
        } catch (error) {
          this.stopHeartbeat();
          onLost(error as Error);
        }
      },
      Math.max(1000, Math.floor(this.ttlMs / 3)),
    ).unref();
  }

  stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /**
   * Gives the lock up; false when the row could not be deleted (a full disk, a damaged file).
   * Never throws: it runs on the way out, and a row left behind names this process, which the
   * next start takes over as soon as the process is gone.
   */
  release(): boolean {
    this.stopHeartbeat();
    if (!this.db.open) return false;
    try {
      this.db.prepare('DELETE FROM instance_lock WHERE id = 1 AND owner = ?').run(this.owner);
      return true;
    } catch {
      return false;
    }
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
