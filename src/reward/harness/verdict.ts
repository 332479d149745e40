import type { Resolution, HarnessGeneration, StatusMap } from '../../languages/index.js';

/**
 * The official harness's verdict on a status map (swebench harness/grading.py), kept beside ours in
 * every report so rewards can be compared with official results. Its semantics are looser than
 * ours on purpose of its own: XFAIL counts as a pass, a skipped PASS_TO_PASS test is ignored (4.1)
 * or counts as maintained (5.x), and 5.x matches a dataset name cut inside its parameters by
 * prefix when every id it could stand for agrees on pass or fail.
 */
export interface HarnessVerdict {
  readonly generation: HarnessGeneration;
  readonly resolved: boolean;
  readonly resolution: Resolution;
  readonly failToPass: { readonly success: readonly string[]; readonly failure: readonly string[] };
  readonly passToPass: { readonly success: readonly string[]; readonly failure: readonly string[] };
  /** Why the harness would not read the log at all (then nothing resolves). */
  readonly invalid?: string;
}

const PASSING = new Set(['PASSED', 'XFAIL']);

/** 5.x: _resolve_case, tolerating names cut inside a parametrised id. */
function resolveCase(name: string, map: StatusMap, generation: HarnessGeneration): string | undefined {
  if (map.has(name)) return name;
  if (generation !== '5') return undefined;
  if (count(name, '[') <= count(name, ']')) return undefined;
  const matches = [...map.keys()].filter((k) => k.startsWith(name));
  if (matches.length === 0) return undefined;
  const outcomes = new Set(matches.map((k) => PASSING.has(map.get(k)!)));
  return outcomes.size === 1 ? matches[0] : undefined;
}

function count(s: string, ch: string): number {
  return s.split(ch).length - 1;
}

function passed(name: string, map: StatusMap, g: HarnessGeneration): boolean {
  const key = resolveCase(name, map, g);
  return key !== undefined && PASSING.has(map.get(key)!);
}

function failed(name: string, map: StatusMap, g: HarnessGeneration): boolean {
  const key = resolveCase(name, map, g);
  if (key === undefined) return true;
  const status = map.get(key)!;
  return status === 'FAILED' || status === 'ERROR' || (g === '5' && status === 'SKIPPED');
}

function maintained(name: string, map: StatusMap, g: HarnessGeneration): boolean {
  if (passed(name, map, g)) return true;
  if (g !== '5') return false;
  const key = resolveCase(name, map, g);
  return key !== undefined && map.get(key) === 'SKIPPED';
}

/** 5.x's evidence that a runner ran at all, for an empty parse (Python runners print "N passed"...). */
const SUITE_RAN =
  /Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok$/m;

export function harnessVerdict(input: {
  readonly map: StatusMap;
  readonly log: string;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly generation: HarnessGeneration;
}): HarnessVerdict {
  const { map, generation: g } = input;
  const invalid = invalidity(input);
  const f2p = { success: [] as string[], failure: [] as string[] };
  const p2p = { success: [] as string[], failure: [] as string[] };
  if (!invalid) {
    for (const name of input.failToPass) {
      if (passed(name, map, g)) f2p.success.push(name);
      else if (failed(name, map, g)) f2p.failure.push(name);
    }
    for (const name of input.passToPass) {
      if (maintained(name, map, g)) p2p.success.push(name);
      else if (failed(name, map, g)) p2p.failure.push(name);
    }
  }
  const rate = (r: { success: string[]; failure: string[] }): number => {
    const total = r.success.length + r.failure.length;
    return total === 0 ? 1 : r.success.length / total;
  };
  const f = rate(f2p);
  const p = rate(p2p);
  const resolution: Resolution = invalid ? 'NO' : f === 1 && p === 1 ? 'FULL' : f > 0 && f < 1 && p === 1 ? 'PARTIAL' : 'NO';
  return {
    generation: g,
    resolved: resolution === 'FULL',
    resolution,
    failToPass: f2p,
    passToPass: p2p,
    ...(invalid ? { invalid } : {}),
  };
}

/** get_logs_eval's reasons to return ({}, False). */
function invalidity(input: {
  map: StatusMap;
  log: string;
  exitCode: number;
  timedOut: boolean;
  generation: HarnessGeneration;
}): string | undefined {
  if (input.timedOut) return 'the tests timed out (the harness logs ">>>>> Tests Timed Out")';
  if (input.generation !== '5') return undefined;
  if (input.map.size === 0 && !SUITE_RAN.test(input.log)) return 'no test results and no sign the suite ran';
  const anyFailure = [...input.map.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (input.exitCode !== 0 && input.map.size > 0 && !anyFailure)
    return `the test command exited ${input.exitCode} but the log reports no failure`;
  return undefined;
}
