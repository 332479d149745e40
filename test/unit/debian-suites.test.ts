import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/common/errors.js';
import { checkSuite, pipUpgradeFor, suiteForPython } from '../../src/tasks/debian-suites.js';

describe('Debian releases for a base image', () => {
  it("finds the release whose python3 is the harness's version, by major and minor", () => {
    expect(suiteForPython('3.9')).toBe('bullseye');
    expect(suiteForPython('3.11')).toBe('bookworm');
    expect(suiteForPython('3.11.7')).toBe('bookworm');
    expect(suiteForPython('3.13')).toBe('trixie');
    // No Debian release this mirror serves has 3.10 or 3.8.
    expect(suiteForPython('3.10')).toBeUndefined();
    expect(suiteForPython('3.8')).toBeUndefined();
  });

  it('refuses a release it cannot build, naming the ones it can', () => {
    expect(checkSuite('bullseye')).toBe('bullseye');
    expect(() => checkSuite('buster')).toThrow(InvalidArgumentError);
    expect(() => checkSuite('buster')).toThrow(/bullseye \(Python 3\.9\), bookworm \(Python 3\.11\), trixie \(Python 3\.13\)/);
  });

  it("upgrades pip only on a release whose pip cannot run the harness's editable installs", () => {
    expect(pipUpgradeFor('bullseye')).toBe("python -m pip install --upgrade 'pip>=21.3'");
    expect(pipUpgradeFor('bookworm')).toBeUndefined();
    expect(pipUpgradeFor(undefined)).toBeUndefined();
  });
});
