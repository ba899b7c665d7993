/**
 * How a random seed's daemon is configured, drawn from the seed alone (a generator of its own,
 * so these draws move none of the seed's steps): in a share of seeds a sync runs several
 * documents and entities at once (`queue.concurrency` 2 to 4; their calls take turns the seed
 * chooses, port-turns.ts), and in a share the delete rails are at their defaults (50 %, 100), so
 * deletes are held for a person and the person's approval or refusal matters (those firms have
 * three documents an entity, so a burst of deletes can pass 50 %). The others keep one document
 * at a time and the rails raised (a few random deletes pass 50 % of an entity). Half the seeds
 * hold no delete of a removed folder (`safety.deleteHoldSeconds` 0): the delete is then sent in
 * the sync that saw the folder gone, and a folder put back during that sync meets the delete's
 * second look, not a plan made after the hold.
 */
import { hashString, seededRandom } from '../../src/simulator/random.js';
import type { SeedPlan } from './seed-run.js';

/** Seeds whose syncs run several documents and entities at once. */
export const CONCURRENT_SHARE = 0.4;
/** Seeds whose delete rails are at their defaults. */
export const DEFAULT_RAILS_SHARE = 0.3;
/** Seeds that hold no delete of a removed folder. */
export const NO_HOLD_SHARE = 0.5;

/** The plan with this seed's settings, where the plan leaves them to the seed. */
export function withSeedSettings(seed: number, plan: SeedPlan): SeedPlan {
  if (!plan.drawSettings) return plan;
  const random = seededRandom(hashString(`settings of seed ${seed}`));
  const concurrency = random() < CONCURRENT_SHARE ? 2 + Math.floor(random() * 3) : 1;
  const { safety, ...rest } = plan;
  const defaultRails = random() < DEFAULT_RAILS_SHARE;
  const deleteHoldSeconds = random() < NO_HOLD_SHARE ? 0 : 60;
  if (!defaultRails)
    return { ...rest, concurrency, deleteHoldSeconds, ...(safety ? { safety } : {}) };
  // One document of each entity is never deleted (the chaos suite's keepers): with two, no
  // burst of folder deletes could pass the 50 % rail.
  const documentsPerEntity = Math.max(plan.firm.documentsPerEntity ?? 2, 3);
  return { ...rest, concurrency, deleteHoldSeconds, firm: { ...plan.firm, documentsPerEntity } };
}
