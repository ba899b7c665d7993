import { afterEach } from 'vitest';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';

export type StartSimulator = (options?: SimulatorOptions) => Promise<Simulator>;

/**
 * Starts simulators (`startSimulator`, on port 0 unless told otherwise), each closed after its
 * test, passed or failed: the newest first, and every one even if another's close fails.
 */
export function useSimulators(): StartSimulator {
  const started: Simulator[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const sim of started.splice(0).reverse()) {
      await sim.close().catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw new AggregateError(failures, 'a simulator did not close');
  });
  return async (options) => {
    const sim = await startSimulator(options);
    started.push(sim);
    return sim;
  };
}
