import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { environmentLines, type EvalPlan } from '../eval-plan/plan.js';
import type { GradeReport } from '../report.js';
import { PRE_TEST_SCRIPT, bashArgv } from '../scripts.js';
import { quiesce } from './agent-steps.js';
import { ModelFault, assertAlive, seconds, watchingPause } from './container-watch.js';

/**
 * The plan's steps after the test patch (a 5.x row's eval_script: build steps such as `make`, pins
 * such as `pip install 'pytest<7.2'`, exports), run where the harness runs them: once the test
 * patch is applied, before the tests, in the grading container. They run before any grading input
 * of the test run (recorder, key, results channel) is written, and every process they leave is
 * ended before it is, since a build step runs the patch's own code. Their exports and `cd` are run
 * again in the test process (environmentLines), as one shell would have kept them. Their status is
 * reported, not judged: the harness goes on to the tests whatever it is.
 */
export async function afterTestPatchStage(
  sandbox: Sandbox,
  input: { readonly task: Task; readonly plan: EvalPlan; readonly timeoutS: number },
  report: GradeReport,
  signal?: AbortSignal,
): Promise<void> {
  const { task, plan } = input;
  if (plan.afterTestPatch.length === 0) return;
  const environment = environmentLines([...plan.evalCommands, ...plan.beforeTestPatch]).join('\n');
  const started = Date.now();
  const result = await watchingPause(sandbox, signal, (watched) =>
    sandbox.exec(bashArgv(PRE_TEST_SCRIPT, 'swe-env-after-test-patch', [task.workdir, environment, plan.afterTestPatch.join('\n')]), {
      // Limited from outside, as the install is: code of the patch a build step runs may stop a timeout inside.
      timeoutMs: input.timeoutS * 1000,
      outputLimitBytes: 256 * 1024,
      signal: watched,
    }),
  );
  if (signal?.aborted) throw new Error('grading was cancelled');
  await assertAlive(sandbox, 'the steps after the test patch', result.exitCode);
  const took = seconds(started);
  report.durations.installS += took;
  report.afterTestPatch = {
    ran: true,
    reason: `${plan.afterTestPatch.length} step(s) the eval_script runs between the test patch and the tests`,
    exitCode: result.exitCode,
    seconds: took,
    outputTail: result.output.toString('utf8').slice(-4000),
  };
  // The task was validated with these steps on the gold patch: steps that never end run the patch's code.
  if (result.timedOut)
    throw new ModelFault(
      `the steps after the test patch did not end within ${input.timeoutS}s (the patch's own code, built or run by them)`,
    );
  await quiesce(sandbox);
}
