import { canaryRunner, type LanguageRunner, type MirrorSource } from '../../languages/index.js';

/**
 * Mirror canaries for the runners beyond Python: renamed copies of the file's own listed tests (the
 * issue's FAIL_TO_PASS tests first, then a PASS_TO_PASS one), one exact, one with its first
 * top-level check inverted and one with the literal of that check changed. Synthetic canaries have
 * a shape of their own that code deciding the printed results can learn to spare; a mirror runs the
 * repository's code exactly as the listed test does, so it fails and passes for the same reasons.
 * What they pin down, whatever the trick:
 *
 * - the inverted copy of a test reported PASSED must itself be reported FAILED (every check of the
 *   test held, so the inverted one cannot): a rewriter turning the failing tests into
 *   passes has to turn exactly the original of each pair and never its copy;
 * - the exact copy of a test reported PASSED must be reported PASSED: printing success for the
 *   listed names alone (guessed from the issue) leaves the copy's true failure in the log.
 *
 * A test is mirrored only when copying cannot change what it does: a plain top-level test function
 * (no other attribute, no parameters beyond Go's *testing.T) that neither reads its own name (golden
 * files named after the test) nor returns early before the check that is inverted. How each runner's
 * tests are read and copied is its language's (src/languages/<language>/mirrors.ts).
 */

export type { MirrorSource } from '../../languages/index.js';

/** The listed test's function in the file, when it is plain enough to copy. */
export function mirrorSource(runner: LanguageRunner, content: string, name: string): MirrorSource | undefined {
  return canaryRunner(runner).mirrorSource(content, name);
}

/** The header of a copy of the test under another name. */
export function mirrorHeader(runner: LanguageRunner, name: string, source: MirrorSource): string[] {
  return canaryRunner(runner).mirrorHeader(name, source);
}

/**
 * The body with its first top-level check inverted (Go's first `if COND {` whose block fails the
 * test becomes `if !(COND) {`; cargo's first single-line `assert_eq!`/`assert_ne!`/`assert!` is
 * turned into its opposite). Undefined when there is none, or when something before it could leave
 * the test early (then a passing test need not have reached the check).
 */
export function invertedBody(runner: LanguageRunner, source: MirrorSource): string[] | undefined {
  return rewriteFirstCheck(runner, source, (body, i) => canaryRunner(runner).invertCheck(body, i, source));
}

/**
 * The body with the literal of its first top-level equality check against a literal changed
 * (literal-mutation.ts): Go's `if ... || x != 1 {` (the block failing the test), cargo's
 * `assert_eq!(x, 3)`, googletest's `EXPECT_EQ(x, "a")`/`EXPECT_STREQ`. When the original passed,
 * the value equalled the literal, so it cannot equal another: the copy must fail. It catches what
 * the inverted copy cannot: a value of the agent's whose equality holds with anything.
 */
export function mutatedBody(runner: LanguageRunner, source: MirrorSource, random: (n: number) => number): string[] | undefined {
  return rewriteFirstCheck(runner, source, (body, i) => canaryRunner(runner).mutateCheck(body, i, source, random));
}

function rewriteFirstCheck(
  runner: LanguageRunner,
  source: MirrorSource,
  rewrite: (body: string[], i: number) => string | undefined,
): string[] | undefined {
  const body = [...source.body];
  for (let i = 0; i < body.length; i++) {
    const rewritten = rewrite(body, i);
    if (rewritten === undefined) {
      if (leavesEarly(runner, body[i]!, source.param)) return undefined;
      continue;
    }
    body[i] = rewritten;
    return body;
  }
  return undefined;
}

function leavesEarly(runner: LanguageRunner, line: string, param: string): boolean {
  if (
    /\breturn\b|\bgoto\b|\bbreak\b|\bpanic\b|os\.Exit|process::exit|\bthrow\b|GTEST_SKIP|markTest(Skipped|Incomplete)|\b(std::)?(exit|abort|_Exit|longjmp|die)\(/.test(
      line,
    )
  )
    return true;
  return canaryRunner(runner).leavesEarly?.(line, param) ?? false;
}
