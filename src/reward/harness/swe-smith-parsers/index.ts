import { parseLogJq, parseLogRedis } from '../parsers/c-cpp.js';
import type { LanguageParser, StatusMap } from '../parsers/py-re.js';
import { parseSmithAirsim, parseSmithBoostTest, parseSmithCatch2, parseSmithCppunit, parseSmithCtest, parseSmithGtest } from './cpp.js';
import { parseSmithGradleJunitXml, parseSmithMavenSurefire } from './java.js';
import {
  parseSmithJasmine,
  parseSmithJest,
  parseSmithKarma,
  parseSmithMarked,
  parseSmithMocha,
  parseSmithMochaCounts,
  parseSmithQunit,
  parseSmithReactPdf,
  parseSmithTurbo,
  parseSmithVitest,
} from './javascript.js';
import { parseSmithCargo, parseSmithDotnet, parseSmithGo, parseSmithPhpunitTestdox } from './other.js';

/**
 * swesmith 0.0.9's log parsers for its non-Python profiles, by the name swe-env gives each
 * (`swesmith_` and the package's function name, or the profile's for a parser of its own). Valkey's
 * and jq's are the harness's redis and jq parsers line for line, so those ports are reused; every
 * other differs from the harness's parser of the same runner (see each file). Checked against the
 * package's own log_parser methods in test/conformance/swesmith-language-profiles.test.ts.
 */
export const SMITH_LANGUAGE_PARSERS: Readonly<Record<string, LanguageParser>> = Object.freeze({
  swesmith_go: parseSmithGo,
  swesmith_cargo: parseSmithCargo,
  swesmith_jest: parseSmithJest,
  swesmith_mocha: parseSmithMocha,
  swesmith_mocha_counts: parseSmithMochaCounts,
  swesmith_vitest: parseSmithVitest,
  swesmith_karma: parseSmithKarma,
  swesmith_jasmine: parseSmithJasmine,
  swesmith_qunit: parseSmithQunit,
  swesmith_react_pdf: parseSmithReactPdf,
  swesmith_marked: parseSmithMarked,
  swesmith_turbo: parseSmithTurbo,
  swesmith_maven_surefire: parseSmithMavenSurefire,
  swesmith_gradle_junit_xml: parseSmithGradleJunitXml,
  swesmith_ctest: parseSmithCtest,
  swesmith_gtest: parseSmithGtest,
  swesmith_catch2: parseSmithCatch2,
  swesmith_boost_test: parseSmithBoostTest,
  swesmith_cppunit: parseSmithCppunit,
  swesmith_airsim: parseSmithAirsim,
  swesmith_valkey: parseLogRedis,
  swesmith_jq: parseLogJq,
  swesmith_dotnet: parseSmithDotnet,
  swesmith_phpunit_testdox: parseSmithPhpunitTestdox,
});

export function isSmithLanguageParser(name: string): boolean {
  return Object.hasOwn(SMITH_LANGUAGE_PARSERS, name);
}

export function parseSmithLanguageLog(name: string, log: string): StatusMap {
  const parse = SMITH_LANGUAGE_PARSERS[name];
  if (!parse) throw new Error(`unknown swesmith log parser ${name}`);
  return parse(log, {});
}
