'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { range } = require('../lib/range.js');

test('counts up from start to end, end excluded', () => {
  assert.deepStrictEqual(range(0, 4), [0, 1, 2, 3]);
});

test('uses the step', () => {
  assert.deepStrictEqual(range(1, 10, 3), [1, 4, 7]);
});

test('is empty when start equals end', () => {
  assert.deepStrictEqual(range(5, 5), []);
});
