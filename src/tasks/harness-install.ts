import { HARNESS_STEPS, type HarnessSteps } from './harness-install-steps.js';

/** The harness's set-up for a task's (repository, version), as one install step for `images build`. */
export interface HarnessInstall {
  /** The shell step: pip packages, pre-install, install and build, as the harness's image runs them. */
  readonly script: string;
  /** Debian packages the harness installs with apt-get; the base image must hold them (`images base --packages`). */
  readonly aptPackages: readonly string[];
  /** The Python version the harness's environment has for this (repository, version), when it says. */
  readonly python?: string;
}

const APT_INSTALL = /\bapt(?:-get)?\s+(?:-\S+\s+)*install\s+([^;&|]*)/;

/** A pre-install line that runs apt: left out (the build has no package lists), its packages named. */
function aptPackagesOf(line: string): string[] | undefined {
  if (!/\bapt(-get)?\b/.test(line)) return undefined;
  const listed = APT_INSTALL.exec(line)?.[1] ?? '';
  return listed.split(/\s+/).filter((word) => word && !word.startsWith('-'));
}

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

function compose(steps: HarnessSteps): HarnessInstall {
  const apt = new Set(steps.aptPackages ?? []);
  const lines: string[] = [];
  if (steps.pipPackages?.length) lines.push(`python -m pip install ${steps.pipPackages.map(quote).join(' ')}`);
  for (const line of steps.preInstall ?? []) {
    const packages = aptPackagesOf(line);
    if (packages) packages.forEach((p) => apt.add(p));
    else lines.push(line);
  }
  lines.push(...(steps.install ?? []), ...(steps.build ?? []));
  return { script: ['set -ex', ...lines].join('\n'), aptPackages: [...apt], ...(steps.python ? { python: steps.python } : {}) };
}

/**
 * What the harness's image runs to set a task up (swebench 4.1.0's pip_packages, pre_install,
 * install and build for its repository and version), for a record that carries no install step
 * (SWE-bench 5.x and Multilingual rows). Undefined when the harness knows nothing of the pair or
 * its set-up is empty. The harness's environment (a conda Python of its own version, a Node
 * version, requirements files it fetches) is not reproduced: the base image stands in for it.
 */
export function harnessInstallFor(repo: string, version: string | undefined): HarnessInstall | undefined {
  if (version === undefined) return undefined;
  const steps = HARNESS_STEPS[repo]?.find((group) => group.versions.includes(version));
  if (!steps) return undefined;
  const composed = compose(steps);
  return composed.script === 'set -ex' ? undefined : composed;
}
