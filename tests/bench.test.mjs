// The bench's own rules that decide what its ratios mean.
import assert from 'node:assert/strict';
import test from 'node:test';

import { roundOrder } from '../bench/lib/measure.mjs';

test('bench: each round runs every tool once, and over a cycle each tool follows every other equally often', () => {
  for (const n of [2, 3, 4, 5, 6]) {
    const cycle = n % 2 === 0 ? n : 2 * n;
    const follows = new Map();
    for (let round = 0; round < cycle; round++) {
      const order = roundOrder(n, round);
      assert.deepEqual([...order].sort((a, b) => a - b), [...Array(n).keys()], `round ${round} of ${n} tools: ${order}`);
      for (let i = 1; i < n; i++) follows.set(`${order[i - 1]}>${order[i]}`, (follows.get(`${order[i - 1]}>${order[i]}`) ?? 0) + 1);
    }
    // n (n − 1) ordered pairs, each seen cycle (n − 1) / (n (n − 1)) = cycle / n times.
    assert.equal(follows.size, n * (n - 1), `${n} tools: ${[...follows.keys()]}`);
    for (const [pair, times] of follows) assert.equal(times, cycle / n, `${n} tools: ${pair} ${times} times`);
  }
  // A rotation would keep 1 right after 0 in every round but one; here it is once in four.
  const afterZero = [0, 1, 2, 3].map((round) => roundOrder(4, round)).filter((o) => o.indexOf(1) === o.indexOf(0) + 1);
  assert.equal(afterZero.length, 1);
});
