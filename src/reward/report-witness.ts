import type { Finding } from './findings.js';
import type { ReportRecord } from './result-recorder.js';

/**
 * What the boot's witness (scripts/boot/swe_env_witness.py) says of a pytest run's reports. Each
 * logged report carries the outcome pytest made it with from a call of its own ("passed",
 * "failed", "skipped"), or "" when pytest made no such report (one built or relabelled by other
 * code), or "rebuilt" when pytest rebuilt it from serialized data (pytest-xdist's workers, a forked
 * child's), "rebuilt-here" when the process rebuilding it ran the test's phase itself (subtests),
 * "rebuilt-foreign" when the code under test was on the stack as it was rebuilt;
 * none at all on a pytest too old for the witness.
 */
export interface WitnessReading {
  /** Whether every report carries a made outcome. */
  readonly witnessed: boolean;
  /** The reports a test's status is read from: where pytest made reports for a test and phase, only those. */
  readonly counted: readonly ReportRecord[];
  readonly findings: readonly Finding[];
}

/** A report pytest made from a call of its own, in any process of the run (a forked child's too). */
export interface MadeRecord {
  readonly nodeid: string;
  readonly when: string;
  readonly outcome: string;
}

const slot = (r: { nodeid: string; when: string }): string => `${r.nodeid}\0${r.when}`;
const REBUILT = new Set(['rebuilt', 'rebuilt-here', 'rebuilt-foreign']);
const madeHere = (r: ReportRecord): boolean => r.made !== undefined && r.made !== '' && !REBUILT.has(r.made);

export function readWitness(reports: readonly ReportRecord[], madeRecords: readonly MadeRecord[] = []): WitnessReading {
  const witnessed = reports.length > 0 && reports.every((r) => r.made !== undefined);
  const findings: Finding[] = [];
  for (const r of reports) {
    const finding = madeOtherwise(r);
    if (finding) findings.push(finding);
  }
  // A subtest's report never decides its test's status (the harness reads the test's own line).
  const own = reports.filter((r) => r.subtest !== true);
  for (const r of own) {
    // A passing call of a test whose function was not its file's own, where the file's code for
    // it never returned normally with pytest's arguments: whatever stood in its place passed.
    if (r.when !== 'call' || r.outcome !== 'passed' || r.proof === undefined || r.proof === 'returned') continue;
    if (r.proof === 'raised' || r.proof === 'lost')
      findings.push({ kind: 'test-code-raised', detail: `${r.nodeid}${r.proof === 'lost' ? ' (no longer heard)' : ''}` });
    else
      findings.push({
        kind: 'test-code-not-run',
        detail: `${r.nodeid}${r.proof === 'profiler' ? " (a profile function of C's was in place: nothing could be heard)" : ''}`,
      });
  }
  const genuine = new Set(own.filter(madeHere).map(slot));
  // Another report of a test and phase pytest made a report for (one built in its place) never
  // decides its status either.
  const counted = own.filter((r) => r.made === undefined || madeHere(r) || !genuine.has(slot(r)));
  // What pytest made passing in any process with the boot (a forked child's test, rebuilt by its
  // parent): a rebuilt or constructed passing report is held to it.
  const madePassing = new Set(madeRecords.filter((m) => m.outcome === 'passed').map(slot));
  let rebuiltAlone = false;
  for (const r of counted) {
    if (r.made === undefined || madeHere(r) || r.outcome !== 'passed') continue;
    // A report rebuilt where the test's phase ran (its own report made, or kept from being made,
    // and another logged in its place) answers to no other process's report.
    if (r.made === 'rebuilt-foreign') {
      findings.push({
        kind: 'outcome-not-made',
        detail: `${r.nodeid}, ${r.when}: rebuilt from data with the code under test on the stack`,
      });
      continue;
    }
    if (r.made === 'rebuilt-here') {
      findings.push({
        kind: 'outcome-not-made',
        detail: `${r.nodeid}, ${r.when}: rebuilt from data in the process that ran it, in place of pytest's own report`,
      });
      continue;
    }
    if (madePassing.has(slot(r))) continue;
    if (r.made === 'rebuilt' && genuine.size === 0 && madeRecords.length === 0) {
      rebuiltAlone = true; // no process here made a report: a run of pytest-xdist's workers
    } else {
      findings.push({
        kind: 'outcome-not-made',
        detail: `${r.nodeid}, ${r.when}: ${r.made === 'rebuilt' ? 'rebuilt from data' : 'not made by pytest'}, where pytest made no passing report of its own`,
      });
    }
  }
  if (rebuiltAlone) findings.push({ kind: 'outcome-rebuilt' });
  return { witnessed, counted, findings };
}

/**
 * A report pytest made with another outcome than it was logged with, in the one direction that
 * leads to a reward: pytest's own machinery never turns a failure or a skip into a pass, and its
 * expected failure is a failure it made (an xfail-marked test's, or one `pytest.xfail` raised).
 * The other way (a pass made a failure: a strict xpass, unittest's unexpected success) and a
 * failure made an expected one are pytest's own.
 */
function madeOtherwise(r: ReportRecord): Finding | undefined {
  if (!madeHere(r)) return undefined;
  const detail = `${r.nodeid}, ${r.when}: pytest made it ${r.made!}`;
  if (r.outcome === 'passed' && r.made !== 'passed') return { kind: 'outcome-not-made', detail };
  if (r.outcome === 'skipped' && r.wasxfail && r.made !== 'failed')
    return { kind: 'outcome-not-made', detail: `${detail}, not an expected failure` };
  return undefined;
}
