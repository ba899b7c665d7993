import type { Simulator } from '../../src/simulator/index.js';

/** Answers the simulator counted under a `METHOD /route STATUS` key that `route` matches. */
export function served(sim: Simulator, route: RegExp): number {
  return Object.entries(sim.admin.counters().api.byRoute)
    .filter(([key]) => route.test(key))
    .reduce((n, [, count]) => n + count, 0);
}

/** Document lists the service has answered: one per entity a sync has listed. */
export function listsServed(sim: Simulator): number {
  return served(sim, /^GET \S*\/documents 200$/);
}

/** Answers of the service with `status`, over every route. */
export function answered(sim: Simulator, status: number): number {
  return served(sim, new RegExp(` ${status}$`));
}
