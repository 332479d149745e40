import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the test files longest first, by the durations of a full run kept in test/durations.json
 * (scripts/test-durations.mjs writes it from a run's log). Vitest's own order needs its cache of an
 * earlier run, which a clean clone (the CI's) lacks: it then runs the largest files first, and a
 * long file started last leaves one worker busy alone at the end. A file not listed (new since the
 * list was made) counts as a middling one.
 */
const UNLISTED_MS = 30_000;

function knownDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, 'test', 'durations.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = knownDurations(root);
    const expected = (spec: TestSpecification): number => durations[relative(root, spec.moduleId)] ?? UNLISTED_MS;
    // Ties (and an empty list) keep the order vitest would give.
    const base = await super.sort(files);
    const position = new Map(base.map((spec, i) => [spec, i]));
    return [...base].sort((a, b) => expected(b) - expected(a) || (position.get(a) ?? 0) - (position.get(b) ?? 0));
  }
}
