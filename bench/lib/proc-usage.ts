/**
 * What Linux says a process uses, read from /proc without touching the process itself (no
 * request to it, no signal), so sampling an idle daemon does not wake it: resident memory and
 * its peak from `status`, CPU time from `stat`, inotify watches from the fdinfo of its fds.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface MemoryUsage {
  /** VmRSS, bytes. */
  readonly rss: number;
  /** VmHWM (peak RSS since start), bytes. */
  readonly hwm: number;
}

export function memoryOf(pid: number): MemoryUsage {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${key} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of the process (all its threads), in ms; children are not included. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing paren are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond;
}

/** inotify watches the process holds: one `inotify wd:` line per watch in its fds' fdinfo. */
export function inotifyWatchesOf(pid: number): number {
  let watches = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    // An fd may close between the listing and the read.
    const info = readFileIfThere(`/proc/${pid}/fdinfo/${fd}`);
    for (const line of info.split('\n')) if (line.startsWith('inotify wd:')) watches++;
  }
  return watches;
}

/** Decimal megabytes, as the target is written (300 MB). */
function readFileIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

export interface IdleSample {
  /** Highest VmRSS seen in the window, and the last one. */
  readonly maxRss: number;
  readonly lastRss: number;
  /** VmHWM at the end: the peak since the process started, window or not. */
  readonly hwm: number;
  /** CPU time over the window, ms, and as a share of one core. */
  readonly cpuMs: number;
  readonly cpuPercent: number;
  readonly windowMs: number;
}

/** Watches a process for `windowMs` from /proc alone, reading its memory every second. */
export async function sampleIdle(pid: number, windowMs: number): Promise<IdleSample> {
  const started = performance.now();
  const cpuBefore = cpuMsOf(pid);
  let maxRss = 0;
  let last = memoryOf(pid);
  while (performance.now() - started < windowMs) {
    last = memoryOf(pid);
    maxRss = Math.max(maxRss, last.rss);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(1000, windowMs - (performance.now() - started))),
    );
  }
  const cpuMs = cpuMsOf(pid) - cpuBefore;
  const elapsed = performance.now() - started;
  last = memoryOf(pid);
  maxRss = Math.max(maxRss, last.rss);
  return {
    maxRss,
    lastRss: last.rss,
    hwm: last.hwm,
    cpuMs,
    cpuPercent: (cpuMs / elapsed) * 100,
    windowMs: elapsed,
  };
}

export interface ShrinkWait {
  /** Highest VmRSS seen while waiting. */
  readonly maxRss: number;
  /** CPU share over the wait, as in IdleSample. */
  readonly cpuPercent: number;
  /** How long until the drop, or the whole wait when there was none. */
  readonly waitedMs: number;
  readonly shrank: boolean;
}

/**
 * Waits for an idle process's resident memory to drop by `fraction` from its highest (V8 gives
 * back the heap a burst of work grew only when its memory reducer runs, which in Node 20 may be
 * ~100 s after the last full GC), at most `maxMs`.
 */
export async function awaitShrink(
  pid: number,
  fraction: number,
  maxMs: number,
): Promise<ShrinkWait> {
  const started = performance.now();
  const cpuBefore = cpuMsOf(pid);
  let maxRss = 0;
  let shrank = false;
  while (performance.now() - started < maxMs) {
    const { rss } = memoryOf(pid);
    maxRss = Math.max(maxRss, rss);
    if (rss < maxRss * (1 - fraction)) {
      shrank = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const waitedMs = performance.now() - started;
  return { maxRss, cpuPercent: ((cpuMsOf(pid) - cpuBefore) / waitedMs) * 100, waitedMs, shrank };
}
