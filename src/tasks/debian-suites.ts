import { InvalidArgumentError } from '../common/errors.js';

/**
 * The Debian releases a base image can be built from (debootstrap from the machine's apt mirror)
 * and the Python each one's python3 is: a SWE-bench row's tests ran on the harness's Python, and
 * some pass only there (Sphinx 4.1 and 4.2 import names Python 3.10.1 removed).
 */
export const DEBIAN_SUITES: Readonly<Record<string, string>> = Object.freeze({
  bullseye: '3.9',
  bookworm: '3.11',
  trixie: '3.13',
});

/**
 * Releases whose pip is older than 21.3, which cannot install a project with only a pyproject.toml
 * in editable mode (PEP 660): the harness's conda environments have a current pip, so its
 * `pip install -e .` of such a project (Sphinx 7) works there and fails on bullseye's pip 20.3.
 */
const OLD_PIP: ReadonlySet<string> = new Set(['bullseye']);

/** The step that gives a base of such a release the pip the harness's steps assume (with the network the build has). */
export function pipUpgradeFor(suite: string | undefined): string | undefined {
  return suite !== undefined && OLD_PIP.has(suite) ? "python -m pip install --upgrade 'pip>=21.3'" : undefined;
}

/** The image label build-base-image.sh puts on a base (and its variants inherit). */
export const LABEL_DEBIAN_SUITE = 'swe-env.debian-suite';

export function describeSuites(): string {
  return Object.entries(DEBIAN_SUITES)
    .map(([suite, python]) => `${suite} (Python ${python})`)
    .join(', ');
}

/** A suite name the base can be built from, or an error that lists them. */
export function checkSuite(suite: string): string {
  if (DEBIAN_SUITES[suite] === undefined) throw new InvalidArgumentError(`--suite ${suite}: not one of ${describeSuites()}`);
  return suite;
}

/** A Python version's major.minor (3.9.2 -> 3.9). */
export function pythonMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** The suite whose python3 is this major.minor version, if one is. */
export function suiteForPython(version: string): string | undefined {
  const wanted = pythonMinor(version);
  return Object.entries(DEBIAN_SUITES).find(([, python]) => python === wanted)?.[0];
}
