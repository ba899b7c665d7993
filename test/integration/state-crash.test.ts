import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { distModuleUrl } from '../helpers/dist-module.js';
import { useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

/**
 * A real process records two pushes, completes one, marks the other sent (as just before its
 * request leaves), says so, and waits; we SIGKILL it. No close, no exit handler: a real crash.
 */
const CHILD = `
  const { StateStore } = await import(process.env.STATE_STORE_URL);
  const store = StateStore.open(process.env.STATE_FILE);
  const owner = { kind: 'trust', id: '20053' };
  const push = (key) => ({ owner, documentId: '1075468', kind: 'upload-attachment', payload: { fileName: key, sha256: 'abc', size: 1, mtimeMs: 1 } });
  const done = store.outbox.record(push('finished'));
  store.outbox.markSent(done);
  store.outbox.markDone(done);
  const inFlight = store.outbox.record(push('in-flight'));
  store.outbox.markSent(inFlight);
  process.stdout.write('sent ' + inFlight + '\\n');
  setInterval(() => {}, 1000);
`;

describe('state across a real process crash', () => {
  it('shows a push marked sent by a SIGKILLed process as in doubt', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: {
        ...process.env,
        STATE_STORE_URL: distModuleUrl('state/state-store.js'),
        STATE_FILE: state.file(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const sentId = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /sent (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      child.on('exit', () => reject(new Error(`child exited early: ${stderr}`)));
    });
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');

    const store = state.open();
    expect(store.outbox.inDoubt()).toMatchObject([
      { id: sentId, state: 'sent', payload: { fileName: 'in-flight' } },
    ]);
    expect(store.outbox.counts()).toEqual({ pending: 0, sent: 1, failed: 0 });
    expect(store.statusReport().pushes.inDoubt).toBe(1);
  });
});
