import { parse as parseToml } from 'smol-toml';

/**
 * What pytest reads from a configuration file, as pytest reads it, so a change to its settings is
 * recognised however it is written (an escaped TOML key, a continuation line under `addopts`, a
 * removed `filterwarnings = error`) and any other change to the file is not mistaken for one.
 *
 * pytest reads `pytest.ini`, `.pytest.ini` and `tox.ini` ([pytest]), `setup.cfg` ([tool:pytest])
 * with its `iniconfig` parser, and `pyproject.toml` ([tool.pytest.ini_options], and [tool.pytest]
 * in pytest 9) with a TOML parser.
 */
export const PYTEST_CONFIG_FILES: ReadonlySet<string> = new Set(['pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml']);

export class IniParseError extends Error {}

/**
 * The sections of an INI file by iniconfig's rules (the parser pytest uses, not Python's
 * configparser: no interpolation, `=` splits before `: `, a line starting with whitespace continues
 * the previous value, `#` or `;` starts a comment line, a duplicate section or name is an error).
 * Written here because no npm parser follows those rules, and a parser that reads a file otherwise
 * than pytest does is what an agent would aim between.
 */
export function parseIniconfig(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let last: string | undefined;
  const lines = text.split(/\r\n|\n|\r/);
  for (const [index, raw] of lines.entries()) {
    const where = `line ${index + 1}`;
    const stripped = raw.trimStart();
    if (stripped === '' || stripped.startsWith('#') || stripped.startsWith(';')) continue;
    const line = raw.trimEnd();
    if (line.startsWith('[')) {
      let header = line;
      for (const c of ['#', ';']) header = header.split(c)[0]!.trimEnd();
      if (!header.endsWith(']')) throw new IniParseError(`${where}: unexpected '${line.trim()}'`);
      const name = header.slice(1, -1);
      if (sections.has(name)) throw new IniParseError(`${where}: duplicate section ${name}`);
      section = new Map();
      sections.set(name, section);
      last = undefined;
    } else if (!/^\s/.test(line)) {
      const { name, value } = splitAssignment(line, where);
      if (!section) throw new IniParseError(`${where}: no section header before '${name}'`);
      if (section.has(name)) throw new IniParseError(`${where}: duplicate name ${name}`);
      section.set(name, value);
      last = name;
    } else {
      if (!section || last === undefined) throw new IniParseError(`${where}: continuation line with nothing to continue`);
      const previous = section.get(last) ?? '';
      section.set(last, previous === '' ? line.trim() : `${previous}\n${line.trim()}`);
    }
  }
  return sections;
}

function splitAssignment(line: string, where: string): { name: string; value: string } {
  const equals = line.indexOf('=');
  if (equals >= 0 && !line.slice(0, equals).includes(':')) {
    return { name: line.slice(0, equals).trim(), value: line.slice(equals + 1).trim() };
  }
  const colon = line.indexOf(': ');
  if (colon >= 0) return { name: line.slice(0, colon).trim(), value: line.slice(colon + 2).trim() };
  throw new IniParseError(`${where}: not a section, an assignment or a continuation: '${line.trim()}'`);
}

/** The section names pytest reads in a file of this name. */
function iniSectionsFor(base: string): string[] {
  if (base === 'setup.cfg') return ['tool:pytest', 'pytest'];
  return ['pytest'];
}

/**
 * pytest's settings in one file, as a canonical string (equal strings: pytest sees the same
 * settings). A file pytest cannot parse reads as its text, so any change to it counts. A
 * pyproject.toml, setup.cfg or tox.ini is pytest's configuration only with its pytest section, so
 * one that is absent reads as one without it (a new pyproject.toml for packaging is not pytest's);
 * a pytest.ini is pytest's whatever it holds.
 */
export function pytestSettings(path: string, text: string | undefined): string {
  const base = path.split('/').at(-1) ?? '';
  if (text === undefined) return base === 'pytest.ini' || base === '.pytest.ini' ? 'absent' : pytestSettings(path, '');
  try {
    if (base === 'pyproject.toml') {
      const doc = parseToml(text) as { tool?: { pytest?: unknown } };
      return canonical({ pytest: doc.tool?.pytest ?? null });
    }
    const sections = parseIniconfig(text);
    return canonical(
      Object.fromEntries(iniSectionsFor(base).map((name) => [name, sections.has(name) ? Object.fromEntries(sections.get(name)!) : null])),
    );
  } catch {
    return `unparseable: ${text}`;
  }
}

/** JSON with object keys sorted, so key order does not count as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
