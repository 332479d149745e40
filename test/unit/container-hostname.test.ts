import { describe, expect, it } from 'vitest';
import { containerHostname } from '../../src/sandbox/container-options.js';

describe("a container's host name", () => {
  it('is twelve hex digits, never all digits (a resolver reads those as a number)', () => {
    const drawn = [Buffer.from('932923124058', 'hex'), Buffer.from('93292312405a', 'hex')];
    const name = containerHostname(() => drawn.shift()!);
    expect(name).toBe('93292312405a');
    expect(drawn).toEqual([]);
  });

  it('draws twelve hex digits', () => {
    expect(containerHostname()).toMatch(/^[0-9a-f]{12}$/);
  });
});
