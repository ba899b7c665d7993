import { describe, expect, it } from 'vitest';
import { typesStillCarried } from '../../src/domain/learnt-status-types.js';

const lodged = { id: '1', name: 'LODGED' };
const cancelled = { id: '2', name: 'CANCELLED' };
const signed = { id: '3', name: 'SIGNED' };

describe('a status types list read again', () => {
  it('keeps a type it lacks while an agreed status names it, and drops one no status names', () => {
    const carried = () => ['2'];
    expect(typesStillCarried([lodged, cancelled, signed], [lodged], carried)).toEqual([cancelled]);
  });

  it('reads no agreed document when the list lacks nothing it had', () => {
    let asked = 0;
    const carried = () => {
      asked += 1;
      return ['2'];
    };
    expect(typesStillCarried([lodged], [lodged, signed], carried)).toEqual([]);
    expect(asked).toBe(0);
  });
});
