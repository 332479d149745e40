/**
 * Whether grading re-runs the plan's install step after the patch. The harness always does; what it
 * changes is the installed package: a non-editable install (`setup.py install`, `pip install .`)
 * holds a copy of the code, so without it the patch is never tested; an editable one already points
 * at the working tree and changes only when the build's inputs do (setup.py, pyproject.toml,
 * extension sources...). `when-needed` (the default) runs it in those cases (and for any install
 * it cannot read) and skips the rest,
 * saying so in the report; `always` is the harness's way; `never` grades the image as built.
 */
export type InstallRerun = 'always' | 'when-needed' | 'never';
export const INSTALL_RERUNS: readonly InstallRerun[] = ['always', 'when-needed', 'never'];

export interface InstallDecision {
  readonly run: boolean;
  readonly reason: string;
}

/** A step installing the repository itself: pip with a local path (".", ".[test]"), or setup.py. */
const PACKAGE_STEP = /\bpip\b.*\binstall\b.*\s['"]?\.(\/)?(\[[^\]]*\])?['"]?(\s|$)|\bsetup\.py\s+(install|build|develop)\b/;
const EDITABLE = /\s-[a-zA-Z]*e(\s|$)|--editable|setup\.py\s+develop/;

/**
 * Whether the install is editable: it has steps installing the repository itself (pip with a local
 * path, setup.py) and every one of them is editable (pip -e / -ve / --editable, setup.py develop).
 * Steps installing requirements or named packages do not hold the repository's code and do not
 * count. An install with no step we can read (`make init`, a copy) is taken as holding a copy:
 * re-running it costs time, skipping it could grade the unpatched code.
 */
export function isEditableInstall(install: string): boolean {
  const steps = install.split(/;|&&|\|\||\n/).map((step) => ` ${step.trim()} `);
  const packageSteps = steps.filter((step) => PACKAGE_STEP.test(step));
  return packageSteps.length > 0 && packageSteps.every((step) => EDITABLE.test(step));
}

/** Files a build reads: a change to one needs the install re-run even when editable. */
const BUILD_INPUT =
  /(^|\/)(setup\.py|setup\.cfg|pyproject\.toml|MANIFEST\.in|meson\.build|meson_options\.txt|CMakeLists\.txt|Makefile|requirements[^/]*\.txt)$|\.(pyx|pxd|pxi|c|cc|cpp|cxx|h|hpp|f|f90|f95|rs|y|l|in)$/;

export function installDecision(install: string, changedPaths: readonly string[], policy: InstallRerun): InstallDecision {
  if (install.trim() === '') return { run: false, reason: 'the plan has no install step' };
  if (policy === 'never') return { run: false, reason: 'install re-runs are off (--install-rerun never)' };
  if (policy === 'always') return { run: true, reason: 'the harness re-runs the install after every patch (--install-rerun always)' };
  if (changedPaths.length === 0) return { run: false, reason: 'the patch changes nothing' };
  if (!isEditableInstall(install)) return { run: true, reason: 'a non-editable install holds a copy of the code: it must take the patch' };
  const inputs = changedPaths.filter((path) => BUILD_INPUT.test(path));
  if (inputs.length > 0) return { run: true, reason: `the patch changes build inputs (${inputs.slice(0, 3).join(', ')})` };
  return { run: false, reason: 'an editable install already runs the patched code, and no build input changed' };
}
