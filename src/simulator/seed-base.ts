/**
 * What every simulated firm has before any seed: its status types (firms define their own list;
 * these are the names and ids seen in the public docs) and a few company labels.
 */
import type { SimStore } from './store.js';

export const STATUS_TYPES: readonly [number, string][] = [
  [1, 'ADDED FROM MIGRATION'],
  [2, 'DOCUMENT PREPARED'],
  [3, 'SENT TO CLIENT'],
  [10, 'RECEIVED'],
  [11, 'DOCUMENT RECEIVED'],
  [12, 'DOCUMENT PROCESSED'],
  [20, 'CANCELLED'],
  [21, 'LODGED'],
];

export function seedBase(store: SimStore): void {
  for (const [id, name] of STATUS_TYPES) store.statusTypes.set(id, { id, name });
  for (const name of ['Annual review', 'SMSF trustee', 'Dormant']) {
    const id = store.nextId('label');
    store.labels.set(id, { id, name });
  }
}

/** `createdBy` of seeded statuses: the service user who kept the firm's records. */
export const SERVICE_NAME = 'Sam Service';
