/**
 * A log the row's parser throws on, judged by control (src/reward/grading/unreadable-log.ts): the
 * Go demo task graded with parsers that throw. karma's parser throws on text the tested process
 * printed (suites closed that were never opened): the gold patch's own log reads, so the
 * submission that printed it gets the model's 0 with the parser's reason, never INFRA_ERROR.
 * jekyll's parser throws on every log of an instance id it does not know: the gold patch's log
 * cannot be read either, so the row is at fault and every grading of it is INFRA_ERROR (masked).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLanguageDemoImages, languageDemoRow } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

const TASK_ID = 'swe-env-demo__semver-1';
let dir = '';
let record: Record<string, unknown> = {};
let gold = '';

/** A file the change adds to the package: its init() prints three lines that close more karma suites than they open. */
const SUITES_CLOSED = [
  'diff --git a/banner.go b/banner.go',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/banner.go',
  '@@ -0,0 +1,5 @@',
  '+package semver',
  '+',
  '+import "fmt"',
  '+',
  '+func init() { fmt.Print("Starting browser\\n      opened\\n    closed\\n  closed again\\n") }',
  '',
].join('\n');

/** A server over the Go demo task whose record names another log parser. */
async function serverWithParser(parser: string): Promise<TestServer> {
  const file = join(dir, `${parser}.jsonl`);
  await writeFile(file, `${JSON.stringify({ ...record, log_parser: parser })}\n`);
  return startTestServer({ taskFiles: [file], gradingNetwork: 'none' });
}

async function stop(t: TestServer | undefined): Promise<void> {
  if (!t) return;
  await t.stop();
  await expectNoContainers(t.server.provider);
}

beforeAll(async () => {
  await buildLanguageDemoImages();
  dir = await mkdtemp(join(tmpdir(), 'swe-env-unreadable-'));
  record = await languageDemoRow(TASK_ID);
  gold = String(record['patch']);
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a log the parser throws on, printed by the code under test', () => {
  let t: TestServer | undefined;
  beforeAll(async () => {
    t = await serverWithParser('parse_log_karma');
  }, 120_000);
  afterAll(() => stop(t), 120_000);

  it("is the model's 0 with the parser's reason: the gold patch's log reads", async () => {
    const report = (await t!.client.evaluate(TASK_ID, `${gold}${SUITES_CLOSED}`)).report!;
    expect(report.infraError, report.error).toBe(false);
    expect(report.reward).toBe(0);
    expect(report.error).toMatch(/cannot be read by parse_log_karma: IndexError: pop from empty list \(the gold patch's log reads\)/);
  }, 300_000);

  it('leaves a log the parser reads alone: no control is asked', async () => {
    const report = (await t!.client.evaluate(TASK_ID, gold)).report!;
    expect(report.infraError, report.error).toBe(false);
    expect(report.error).not.toMatch(/cannot be read/);
  }, 300_000);
});

describe("a row whose parser cannot read the gold patch's log either", () => {
  let t: TestServer | undefined;
  beforeAll(async () => {
    t = await serverWithParser('parse_log_jekyll');
  }, 120_000);
  afterAll(() => stop(t), 120_000);

  it('is INFRA_ERROR for the gold patch and the empty patch alike: the row is at fault, not the model', async () => {
    for (const patch of [gold, '']) {
      const report = (await t!.client.evaluate(TASK_ID, patch)).report!;
      expect(report.infraError, report.error).toBe(true);
      expect(report.error).toMatch(/Unknown instance id.*the task's parser cannot read its own runs/s);
    }
  }, 300_000);
});
