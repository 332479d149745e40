import { describe, expect, it } from 'vitest';
import { IniParseError, parseIniconfig, pytestSettings } from '../../src/reward/pytest-config.js';

const SETUP_CFG = `[metadata]
name = calc

[tool:pytest]
addopts =
    -p no:cacheprovider
    --strict-markers
filterwarnings =
    error
    ignore::ImportWarning
`;

describe("parseIniconfig (pytest's INI rules)", () => {
  it('reads sections, `=` and `: ` assignments, continuation lines and comment lines', () => {
    const sections = parseIniconfig(`${SETUP_CFG}# a comment\n; another\n[x]\nkey: value\nurl = http://a:b\n`);
    expect(sections.get('tool:pytest')?.get('addopts')).toBe('-p no:cacheprovider\n--strict-markers');
    expect(sections.get('tool:pytest')?.get('filterwarnings')).toBe('error\nignore::ImportWarning');
    expect(sections.get('x')?.get('key')).toBe('value');
    expect(sections.get('x')?.get('url')).toBe('http://a:b');
  });

  it('refuses what pytest refuses: duplicate names or sections, a value before any section', () => {
    expect(() => parseIniconfig('[a]\nk = 1\nk = 2\n')).toThrow(IniParseError);
    expect(() => parseIniconfig('[a]\n[a]\n')).toThrow(IniParseError);
    expect(() => parseIniconfig('k = 1\n')).toThrow(IniParseError);
  });
});

describe('pytestSettings', () => {
  const before = pytestSettings('setup.cfg', SETUP_CFG);

  it('a continuation line added under addopts is a change', () => {
    expect(
      pytestSettings('setup.cfg', SETUP_CFG.replace('    --strict-markers\n', '    --strict-markers\n    -W ignore::DeprecationWarning\n')),
    ).not.toBe(before);
  });

  it('removing `error` from filterwarnings is a change', () => {
    expect(pytestSettings('setup.cfg', SETUP_CFG.replace('    error\n', ''))).not.toBe(before);
  });

  it('other sections, comments and blank lines are not', () => {
    expect(pytestSettings('setup.cfg', SETUP_CFG.replace('name = calc', 'name = calc2\nversion = 2') + '\n# trailing comment\n')).toBe(
      before,
    );
  });

  it('an escaped TOML key is the same table pytest reads', () => {
    const plain = pytestSettings('pyproject.toml', '[project]\nname = "x"\n');
    const escaped = pytestSettings(
      'pyproject.toml',
      '[project]\nname = "x"\n[tool."\\u0070ytest".ini_options]\n"\\u0061ddopts" = "-p evil"\n',
    );
    expect(escaped).not.toBe(plain);
    expect(escaped).toBe(pytestSettings('pyproject.toml', '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-p evil"\n'));
    expect(pytestSettings('pyproject.toml', '[project]\nname = "y"\ndependencies = ["pytest>=7"]\n')).toBe(plain);
  });

  it('a file pytest cannot parse, or a file created or removed, counts as changed', () => {
    expect(pytestSettings('setup.cfg', `${SETUP_CFG}oops\n`)).not.toBe(before);
    expect(pytestSettings('setup.cfg', undefined)).not.toBe(before);
    expect(pytestSettings('pyproject.toml', 'a = [')).not.toBe(pytestSettings('pyproject.toml', 'a = 1'));
  });

  it('an absent pyproject.toml, setup.cfg or tox.ini reads as one without a pytest section; an absent pytest.ini as absent', () => {
    expect(pytestSettings('pyproject.toml', undefined)).toBe(pytestSettings('pyproject.toml', '[project]\nname = "x"\n'));
    expect(pytestSettings('setup.cfg', undefined)).toBe(pytestSettings('setup.cfg', '[metadata]\nname = x\n'));
    expect(pytestSettings('tox.ini', undefined)).toBe(pytestSettings('tox.ini', '[tox]\nenvlist = py311\n'));
    expect(pytestSettings('pyproject.toml', undefined)).not.toBe(
      pytestSettings('pyproject.toml', '[tool.pytest.ini_options]\naddopts = "-x"\n'),
    );
    expect(pytestSettings('pytest.ini', undefined)).not.toBe(pytestSettings('pytest.ini', ''));
  });
});
