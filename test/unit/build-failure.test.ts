import { describe, expect, it } from 'vitest';
import { buildFailureText } from '../../src/sandbox/build-failure.js';

describe("a failed image build's error", () => {
  it('keeps the lines naming an error from before the last few thousand characters, then the end', () => {
    const cause =
      'error An unexpected error occurred: "https://registry/babel-plugin-polyfill-es-shims/-/x-0.9.0.tgz: Request failed \\"404 Not Found\\"".';
    const output = [
      'yarn install v1.22',
      cause,
      ...Array.from({ length: 3000 }, (_, i) => `[${i}] fetching package ${i}...`),
      'Done with exit 1',
    ].join('\n');
    const text = buildFailureText(output);
    expect(text).toContain(cause);
    expect(text).toContain('Done with exit 1');
    expect(text.length).toBeLessThan(16_000);
  });

  it('a short output as it is', () => {
    expect(buildFailureText('make: *** [all] Error 2')).toBe('make: *** [all] Error 2');
  });
});
