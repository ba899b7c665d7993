/**
 * The process metrics must not keep an idle daemon busy: prom-client samples the event-loop lag
 * on a timer, every 10 ms unless told otherwise, which alone cost an idle daemon ~0.5 % of a core
 * (bench 5). Counted as the main thread's voluntary context switches (one per sleep of the event
 * loop) in a child process that holds nothing but the metrics, from the built module.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { distModuleUrl } from '../helpers/dist-module.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wakeups(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]);
}

describe.runIf(process.platform === 'linux')('process metrics', () => {
  it('wake an idle process a few times a second, not a hundred', async () => {
    const metricsUrl = distModuleUrl('web/metrics.js');
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { Metrics } = await import(${JSON.stringify(metricsUrl)});
         new Metrics({ processMetrics: true });
         setTimeout(() => {}, 60_000);
         console.log('ready');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(child.stdout, 'data');
      await sleep(300);
      const before = wakeups(child.pid!);
      await sleep(2000);
      // 10 expected at one sample per 200 ms; prom-client's default made ~200.
      expect(wakeups(child.pid!) - before).toBeLessThan(50);
    } finally {
      child.kill();
    }
  });
});
