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

test('counts down with a negative step', () => {
  assert.deepStrictEqual(range(5, 0, -2), [5, 3, 1]);
});

test('counts down by one', () => {
  assert.deepStrictEqual(range(3, 0, -1), [3, 2, 1]);
});
