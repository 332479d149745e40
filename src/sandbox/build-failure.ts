/**
 * What a failed image build's output says, for its error: the lines that name an error wherever they
 * are (a package manager prints its cause first and thousands of progress lines after it), then the
 * output's end.
 */
const ERROR_LINE = /\b(?:error|ERR!|fatal|failed|failure|not found|no such|cannot|unable to|denied)\b|\b404\b/i;
const MAX_ERROR_LINES = 30;
const TAIL_CHARS = 3000;

export function buildFailureText(output: string): string {
  const tail = output.slice(-TAIL_CHARS);
  const before = output.slice(0, Math.max(0, output.length - TAIL_CHARS));
  const errors = before
    .split('\n')
    .filter((line) => ERROR_LINE.test(line))
    .map((line) => line.slice(0, 300));
  const picked = [...new Set(errors)].slice(0, MAX_ERROR_LINES);
  if (picked.length === 0) return tail;
  return `lines naming an error:\n${picked.join('\n')}\n...\nthe output's end:\n${tail}`;
}
