'use strict';

/**
 * The integers from start up to, not including, end, `step` apart, as Python's range() gives
 * them: a negative step counts down.
 */
function range(start, end, step = 1) {
  const out = [];
  for (let i = start; step > 0 ? i < end : i > end; i += step) {
    out.push(i);
  }
  return out;
}

module.exports = { range };
