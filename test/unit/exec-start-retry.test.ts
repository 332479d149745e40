/**
 * Which failed execs the Docker sandbox starts again (docker-exec.ts's startFailedForNow): the
 * runtime's failure to start the process for the moment, never a program that ran, nor one the
 * runtime cannot start at all (missing, refused), which would fail the same way again.
 */
import { describe, expect, it } from 'vitest';
import { startFailedForNow } from '../../src/sandbox/docker-exec.js';

// As Docker 20.10 with runc 1.1 printed it in a loaded CI run (a grading's read of cargo's dep-info).
const RESET = 'OCI runtime exec failed: exec failed: unable to start container process: read init-p: connection reset by peer: unknown\r\n';

describe('an exec the runtime failed to start for the moment', () => {
  it('is started again: exit 126, no process started, the runtime saying its init pipe broke', () => {
    expect(startFailedForNow({ exitCode: 126, started: false }, RESET)).toBe(true);
    expect(
      startFailedForNow(
        { exitCode: 126, started: false },
        'OCI runtime exec failed: exec failed: unable to start container process: error writing config to pipe: write init-p: broken pipe: unknown',
      ),
    ).toBe(true);
  });
  it('not when a process of the command ran and printed the same words (the code under test can)', () => {
    expect(startFailedForNow({ exitCode: 126, started: true }, RESET)).toBe(false);
  });
  it('not for a program the runtime cannot start at all, nor another exit', () => {
    const missing =
      'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown';
    expect(startFailedForNow({ exitCode: 126, started: false }, missing)).toBe(false);
    expect(startFailedForNow({ exitCode: 127, started: false }, RESET)).toBe(false);
    expect(startFailedForNow({ exitCode: 126, started: false }, 'bash: ./run.sh: Permission denied')).toBe(false);
  });
});
