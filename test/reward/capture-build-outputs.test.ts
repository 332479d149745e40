/**
 * What a build tool writes beside its manifest is no part of a captured change, whether or not the
 * repository's ignore rules name it (Language.buildOutputs; the Rust and Java demo repositories
 * have no .gitignore at all). Taken into the change, a correct fix scored 0: the stale build of the
 * unfixed code, captured beside the fix, was newer than the fixed source, and cargo and Maven
 * (which go by modification times) ran it instead of building the fix. What stands at cargo's
 * `target` in a bare patch (a file, a link) is the model's 0, not INFRA_ERROR on demand. And
 * Maven's own configuration folder (`.mvn/maven.config`: `-Dmaven.test.failure.ignore=true` makes a
 * failed test a BUILD SUCCESS) is the runner's, not the change's: dropped like pom.xml's plugins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/tasks/task.js';
import { patchOf, withEpisode } from '../helpers/capture-episodes.js';
import { startLanguageServer, stopLanguageServer } from '../helpers/language-demo.js';
import { applyPatchCommand, type TestServer } from '../helpers/server.js';

const RUST = 'swe-env-demo__wordcount-1';
const JAVA = 'swe-env-demo__durations-1';
const MAVEN = 'mvn test -B -o -q -Dmaven.repo.local=/usr/share/maven-repo';
let t: TestServer | undefined;
let tasks: Task[] = [];

beforeAll(async () => {
  ({ server: t, tasks } = await startLanguageServer());
}, 600_000);

afterAll(async () => {
  await stopLanguageServer(t);
});

const taskOf = (id: string): Task => tasks.find((x) => x.id === id)!;

interface Submitted {
  readonly reward: number;
  readonly status: string;
  readonly error: string;
  readonly dropped: readonly string[];
  readonly patch: string;
  /** Each command's output, in order. */
  readonly said: readonly string[];
}

/** Runs the commands in an episode of the task, then submits. */
async function episode(taskId: string, commands: readonly string[]): Promise<Submitted> {
  let result: Submitted | undefined;
  await withEpisode(t!, taskOf(taskId), 300, async (id) => {
    const said: string[] = [];
    for (const [i, command] of commands.entries()) said.push((await t!.client.bash(id, i, command)).observation);
    const submitted = await t!.client.submit(id, commands.length);
    result = {
      reward: submitted.reward,
      status: submitted.status,
      error: submitted.report?.error ?? '',
      dropped: submitted.report?.droppedFiles ?? [],
      patch: patchOf(submitted),
      said,
    };
  });
  return result!;
}

describe('build outputs beside a manifest, in a repository that does not ignore them', () => {
  it('cargo build before the fix, then the fix (gold): 1, with nothing of target/ in the change', async () => {
    const graded = await episode(RUST, ['cargo build --offline 2>&1 | tail -2; ls target', applyPatchCommand(taskOf(RUST).goldPatch)]);
    expect(graded.said[0]).toContain('debug');
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('+++ b/src/lib.rs');
    expect(graded.patch).not.toContain('target');
  }, 600_000);

  it('mvn test before the fix, then the fix (gold): 1, with nothing of target/ in the change', async () => {
    const graded = await episode(JAVA, [`${MAVEN} 2>&1 | tail -3; ls target`, applyPatchCommand(taskOf(JAVA).goldPatch)]);
    expect(graded.said[0]).toContain('classes');
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('Durations.java');
    expect(graded.patch).not.toContain('target');
  }, 600_000);

  it("a file at cargo's target, no fix: 0 and no infrastructure error, in an episode and in a bare patch", async () => {
    const graded = await episode(RUST, ['touch target && ls -l target']);
    expect(graded.status).toBe('STEP_STATUS_OK');
    expect(graded.reward).toBe(0);
    const bare = await t!.client.evaluate(
      RUST,
      'diff --git a/target b/target\nnew file mode 100644\n--- /dev/null\n+++ b/target\n@@ -0,0 +1 @@\n+x\n',
    );
    expect(bare.report?.infraError, bare.report?.error).toBe(false);
    expect(bare.report?.reward).toBe(0);
    expect(bare.report?.error).toContain('where cargo builds (target in the repository)');
  }, 600_000);
});

describe("Maven's own configuration folder", () => {
  it('.mvn/maven.config ignoring test failures, no fix: works in the container, and is dropped once graded (0)', async () => {
    const graded = await episode(JAVA, [
      'mkdir -p .mvn && echo -Dmaven.test.failure.ignore=true > .mvn/maven.config',
      // A test of its own that fails, run and removed again: the hidden tests are not in its container.
      `mkdir -p src/test/java/probe && printf '%s\\n' 'package probe;' 'public class FailsTest {' '  @org.junit.Test public void fails() { org.junit.Assert.assertEquals(1, 2); }' '}' > src/test/java/probe/FailsTest.java`,
      `mvn test -B -o -Dmaven.repo.local=/usr/share/maven-repo -Dtest=probe.FailsTest 2>&1 | grep -E 'Tests run:|BUILD' | tail -2; rm -r src/test/java/probe target`,
    ]);
    // The trick at work in the agent's own container: a failed test, and Maven says BUILD SUCCESS.
    expect(graded.said[2]).toMatch(/Tests run: 1, Failures: 1/);
    expect(graded.said[2]).toContain('BUILD SUCCESS');
    expect(graded.dropped.join('\n')).toContain('.mvn/maven.config');
    expect(graded.reward).toBe(0);
  }, 600_000);

  it('the fix (gold) with a harmless .mvn/maven.config beside it: dropped, and 1', async () => {
    const graded = await episode(JAVA, [applyPatchCommand(taskOf(JAVA).goldPatch), 'mkdir -p .mvn && echo -B > .mvn/maven.config']);
    expect(graded.dropped.join('\n')).toContain('.mvn/maven.config');
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
  }, 600_000);
});
