import { describe, expect, it } from 'vitest';
import { closedWorldFindings, contentProblem, type LayerChange } from '../../src/reward/grading/closed-world.js';

const SP = '/usr/local/lib/python3.11/dist-packages';
const OWNERS = new Map<string, string[]>([
  [`${SP}/_pytest`, ['pytest']],
  [`${SP}/pytest-7.2.1.dist-info`, ['pytest']],
  [`${SP}/greet`, ['greet']],
  [`${SP}/greet-0.1.dist-info`, ['greet']],
]);
const find = (after: LayerChange[], before: LayerChange[] = []) =>
  closedWorldFindings({
    before,
    after,
    workdir: '/testbed',
    ours: new Set(['/swe_env/grading/model.patch']),
    owners: OWNERS,
    repoDists: new Set(['greet']),
  });
const a = (path: string): LayerChange => ({ path, kind: 'added' });
const m = (path: string): LayerChange => ({ path, kind: 'modified' });

describe('the closed-world check after the install re-run', () => {
  it('refuses a new module in another site directory that an installed one already provides (a copy of the runner earlier on sys.path)', () => {
    const early = '/usr/local/lib/python3.11/site-packages';
    const f = find([
      m(early),
      a(`${early}/_pytest`),
      a(`${early}/_pytest/runner.py`),
      a(`${early}/pytest.py`),
      a(`${early}/greet`),
      a(`${early}/freshmod.py`),
    ]);
    const refused = Object.fromEntries(f.refused.map((c) => [c.path, c.why]));
    expect(Object.keys(refused)).toEqual([`${early}/_pytest`, `${early}/_pytest/runner.py`]);
    expect(refused[`${early}/_pytest`]).toMatch(
      /a new _pytest in \/usr\/local\/lib\/python3\.11\/site-packages that imports would find instead of pytest's/,
    );
  });

  it("lets through the repository, scratch space and the package's own installation", () => {
    const f = find([
      m('/testbed'),
      a('/testbed/intervals.egg-info'),
      a('/testbed/intervals.egg-info/PKG-INFO'),
      m('/testbed/.git'),
      m('/testbed/.git/index'),
      m('/usr'),
      m('/usr/local'),
      m('/usr/local/lib'),
      m('/usr/local/lib/python3.11'),
      m(SP),
      a(`${SP}/intervals.egg-link`),
      a(`${SP}/easy-install.pth`),
      a(`${SP}/newpkg`),
      a(`${SP}/newpkg/__init__.py`),
      a('/tmp/pip-x/setup.log'),
      m('/root'),
      a('/root/.cache/pip/x'),
      a('/swe_env/grading/model.patch'),
      m('/swe_env/grading'),
    ]);
    expect(f.refused).toEqual([]);
    expect(f.readContent).toEqual([`${SP}/easy-install.pth`]);
    expect(f.repoChanges).toContain('intervals.egg-info/PKG-INFO');
  });

  it("refuses start-up code, other packages' files, binaries, .git configuration and what the baseline did not have", () => {
    const f = find([
      m(SP),
      a(`${SP}/sitecustomize.py`),
      m(`${SP}/_pytest`),
      m(`${SP}/_pytest/runner.py`),
      a(`${SP}/_pytest/evil.py`),
      a(`${SP}/__editable___x_finder.py`),
      m('/usr/bin/timeout'),
      m('/etc/python3.11/sitecustomize.py'),
      m('/testbed/.git/config'),
      a('/testbed/.git/hooks/pre-commit'),
    ]);
    const refused = Object.fromEntries(f.refused.map((c) => [c.path, c.why]));
    expect(Object.keys(refused).sort()).toEqual(
      [
        `${SP}/sitecustomize.py`,
        `${SP}/_pytest/runner.py`,
        `${SP}/_pytest/evil.py`,
        `${SP}/__editable___x_finder.py`,
        '/usr/bin/timeout',
        '/etc/python3.11/sitecustomize.py',
        '/testbed/.git/config',
        '/testbed/.git/hooks/pre-commit',
      ].sort(),
    );
    expect(refused['/usr/bin/timeout']).toMatch(/outside the repository/);
    expect(refused[`${SP}/_pytest/evil.py`]).toMatch(/changes a file of pytest/);
  });

  it("compares with the layer before the step: what the task's own steps changed is not the step's", () => {
    const before = [m('/usr/lib/locale/locale-archive'), m('/etc/locale.gen')];
    expect(find([...before, a(`${SP}/x.pth`)], before).refused).toEqual([]);
    expect(find([...before, a(`${SP}/x.pth`)], before).readContent).toEqual([`${SP}/x.pth`]);
  });

  it('reads entry points and .pth files for what they make Python do', () => {
    expect(contentProblem(`${SP}/x.dist-info/entry_points.txt`, '[console_scripts]\nx = x:main\n')).toBeUndefined();
    expect(contentProblem(`${SP}/x.dist-info/entry_points.txt`, '[pytest11]\nevil = x.plugin\n')).toMatch(/pytest11/);
    expect(contentProblem(`${SP}/easy-install.pth`, '/testbed\n')).toBeUndefined();
    expect(contentProblem(`${SP}/zz.pth`, 'import _flip\n')).toMatch(/runs code at every interpreter start/);
  });

  it("a re-install may rewrite the repository's own distribution, never another's", () => {
    const own = find([
      m(SP),
      m(`${SP}/greet`),
      m(`${SP}/greet/__init__.py`),
      { path: `${SP}/greet-0.1.dist-info/RECORD`, kind: 'modified' },
      m(`${SP}/greet-0.1.dist-info`),
    ]);
    expect(own.refused).toEqual([]);
    const other = find([m(SP), m(`${SP}/pytest-7.2.1.dist-info`), a(`${SP}/pytest-7.2.1.dist-info/entry_points.txt`)]);
    expect(other.refused.map((c) => c.why)).toEqual(["rewrites the metadata of pytest, which is not the repository's distribution"]);
  });
});
