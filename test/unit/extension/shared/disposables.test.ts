import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DisposableOwner } from '../../../../src/extension/shared/disposables';

class Owner extends DisposableOwner {
  take(...names: string[]): void {
    const [first, ...rest] = names.map((n) => ({ dispose: () => this.log.push(n) }));
    this.own(first, ...rest);
  }
  readonly log: string[] = [];
}

describe('DisposableOwner', () => {
  it('disposes what it owns once, last registered first', () => {
    const o = new Owner();
    o.take('a', 'b');
    o.take('c');
    o.dispose();
    o.dispose();
    assert.deepEqual(o.log, ['c', 'b', 'a']);
    assert.equal(o.isDisposed, true);
  });
  it('disposes at once what it is given after it was disposed', () => {
    const o = new Owner();
    o.dispose();
    o.take('late');
    assert.deepEqual(o.log, ['late']);
  });
});
