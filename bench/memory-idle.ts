/**
 * Bench 5 (memory with 100,000 tracked documents, idle CPU) is not built yet: it needs a state
 * database and folder tree of 100,000 documents seeded without a full initial sync, which did
 * not fit this round. It reports so in the table rather than a made-up number.
 */
import type { BenchResult } from './lib/result.js';

export async function memoryIdle(): Promise<BenchResult> {
  return {
    rows: [
      {
        bench: '5 memory, idle CPU',
        measure: 'RSS with 100,000 documents; idle CPU over 1 min',
        figure: 'not built',
        floor: '-',
        target: '< 300 MB, < 1 %',
        verdict: 'info',
      },
    ],
    notes: [
      'Not built yet. Plan: seed the state base (100,000 rows through `state.base.put` in one transaction) and the folder tree (through `FsLocalStore.createDocumentFolder`) to match a simulator seeded with the same firm, start the real daemon on it, then read VmRSS from `/proc/<pid>/status` and utime+stime from `/proc/<pid>/stat` over 60 s; floor: an idle Node process holding the same number of `fs.watch` handles.',
    ],
  };
}
