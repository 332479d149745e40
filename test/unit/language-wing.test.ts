import { describe, expect, it } from 'vitest';
import {
  LANGUAGES,
  isLanguageRun,
  languageOfParser,
  languageRunner,
  readsLineByLine,
  SWE_SMITH_LANGUAGE_PROFILES,
} from '../../src/languages/index.js';

/** The registry's promises: each parser, profile and runner belongs to the language that lists it. */
describe('the language wing', () => {
  it('files every parser under one language, and only Python runs as Python', () => {
    for (const language of LANGUAGES) {
      for (const name of [...Object.keys(language.harnessParsers), ...Object.keys(language.smithParsers)]) {
        expect([name, languageOfParser(name)?.name]).toEqual([name, language.name]);
        expect([name, isLanguageRun(name)]).toEqual([name, language.name !== 'python']);
      }
      for (const name of Object.keys(language.smithParsers)) expect(name.startsWith('swesmith_')).toBe(true);
    }
    expect(languageOfParser('parse_log_unknown')).toBeUndefined();
  });

  it("names in a language's profiles, runners and whole-log list only that language's own parsers", () => {
    for (const language of LANGUAGES) {
      for (const rows of Object.values(language.smithProfiles ?? {})) {
        for (const [repo, , parser] of rows) expect([repo, Object.hasOwn(language.smithParsers, parser)]).toEqual([repo, true]);
      }
      for (const runner of language.canaryRunners ?? []) {
        for (const parser of runner.parsers) {
          expect([parser, languageOfParser(parser)?.name]).toEqual([parser, language.name]);
          expect(languageRunner(parser)).toBe(runner.name);
        }
      }
      for (const parser of language.wholeLogParsers ?? []) {
        expect(Object.hasOwn(language.harnessParsers, parser)).toBe(true);
        expect(readsLineByLine(parser)).toBe(false);
      }
    }
    expect(Object.keys(SWE_SMITH_LANGUAGE_PROFILES).length).toBe(540);
  });

  it('gives each toolchain family and canary runner one language', () => {
    const families = LANGUAGES.flatMap((l) => (l.toolchain ? [l.toolchain.family] : []));
    const runners = LANGUAGES.flatMap((l) => (l.canaryRunners ?? []).map((r) => r.name));
    expect(new Set(families).size).toBe(families.length);
    expect(new Set(runners).size).toBe(runners.length);
    expect(runners.sort()).toEqual(['cargo', 'go', 'gtest', 'phpunit', 'rspec', 'tap']);
  });
});
