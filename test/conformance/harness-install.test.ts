/**
 * The install step `images build --network-install` gives a record with none, against the official
 * harness installed from PyPI: for every (repository, version) of swebench 4.1's table, every
 * language, the step runs the harness's pip packages, pre-install, install and build commands, in
 * that order and nothing else, and names the Debian packages its apt lines and apt-pkgs ask for.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessInstallFor } from '../../src/tasks/harness-install.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

interface HarnessSteps {
  repo: string;
  version: string;
  pip_packages: string[];
  pre_install: string[];
  install: string[];
  build: string[];
  'apt-pkgs': string[];
  python: string | null;
}

let entries: HarnessSteps[];

beforeAll(async () => {
  const env = await pythonEnv();
  entries = (await runPythonJsonLines('test/conformance/harness41_steps.py', [], {
    pythonPath: join(env, 'harness-4.1'),
  })) as HarnessSteps[];
}, 120_000);

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;
const isApt = (line: string): boolean => /\bapt(-get)?\b/.test(line);

describe('the harness set-up for a record with no install step', () => {
  it('covers every language of the table', () => {
    expect(entries.length).toBeGreaterThan(600);
    expect(new Set(entries.map((e) => e.repo)).size).toBeGreaterThan(60);
  });

  it('is the harness’s steps in its order for every (repository, version)', () => {
    const wrong: string[] = [];
    for (const e of entries) {
      const expected = [
        ...(e.pip_packages.length ? [`python -m pip install ${e.pip_packages.map(quote).join(' ')}`] : []),
        ...e.pre_install.filter((line) => !isApt(line)),
        ...e.install,
        ...e.build,
      ];
      const ours = harnessInstallFor(e.repo, e.version);
      const lines = ours ? ours.script.split('\n').slice(1) : [];
      if (JSON.stringify(lines) !== JSON.stringify(expected.flatMap((step) => step.split('\n')))) wrong.push(`${e.repo} ${e.version}`);
      for (const pkg of e['apt-pkgs']) if (!ours?.aptPackages.includes(pkg)) wrong.push(`${e.repo} ${e.version}: apt ${pkg}`);
      for (const line of e.pre_install.filter(isApt)) {
        const named =
          /install\s+(?:-\S+\s+)*([^;&|]*)/
            .exec(line)?.[1]
            ?.split(/\s+/)
            .filter((w) => w && !w.startsWith('-')) ?? [];
        for (const pkg of named) if (!ours?.aptPackages.includes(pkg)) wrong.push(`${e.repo} ${e.version}: apt ${pkg} from "${line}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("names the harness's Python version wherever it has one and a set-up", () => {
    const wrong: string[] = [];
    let named = 0;
    for (const e of entries) {
      const ours = harnessInstallFor(e.repo, e.version);
      if (!ours) continue;
      if (e.python) named += 1;
      if ((ours.python ?? null) !== e.python) wrong.push(`${e.repo} ${e.version}: ${ours.python} for ${e.python}`);
    }
    expect(wrong).toEqual([]);
    expect(named).toBeGreaterThan(100);
    expect(harnessInstallFor('sphinx-doc/sphinx', '4.1')?.python).toBe('3.9');
  });

  it('is nothing for a pair the harness does not know', () => {
    expect(harnessInstallFor('example/unknown', '1.0')).toBeUndefined();
    expect(harnessInstallFor('babel/babel', 'no-such-version')).toBeUndefined();
  });
});
