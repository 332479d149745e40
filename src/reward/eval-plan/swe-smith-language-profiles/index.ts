import { SMITH_C_CSHARP_PHP_PROFILES } from './c-csharp-php.js';
import { SMITH_CPP_PROFILES } from './cpp.js';
import { SMITH_GO_PROFILES } from './go.js';
import { SMITH_JAVA_PROFILES } from './java.js';
import { SMITH_JAVASCRIPT_PROFILES } from './javascript.js';
import type { SmithLanguage, SmithProfileRow } from './row.js';
import { SMITH_RUST_PROFILES } from './rust.js';
import { SMITH_TYPESCRIPT_PROFILES } from './typescript.js';

export type { SmithLanguage } from './row.js';

/**
 * swesmith 0.0.9's profiles for Go, Rust, Java, JavaScript, TypeScript, C, C++, C# and PHP (the
 * package has no Ruby one), keyed by repo_name like the Python ones (swe-smith-profiles.ts). None is
 * `min_testing`, so the package's get_test_cmd gives the profile's test_cmd as it is; babel's alone
 * composes its own (`packageFolders`).
 */
export interface SmithLanguageProfile {
  readonly language: SmithLanguage;
  readonly testCmd: string;
  /** The log parser, by its name in swe-smith-parsers/. */
  readonly parser: string;
  /** babel's get_test_cmd: the test command is followed by the `packages/<name>` folder of each file the bug patch touches. */
  readonly packageFolders?: true;
}

const PACKAGE_FOLDER_PROFILES = new Set(['babel__babel.2ea3fc8f']);

function table(language: SmithLanguage, rows: readonly SmithProfileRow[]): Array<[string, SmithLanguageProfile]> {
  return rows.map(([repoName, testCmd, parser, own]) => [
    repoName,
    { language: own ?? language, testCmd, parser, ...(PACKAGE_FOLDER_PROFILES.has(repoName) ? { packageFolders: true as const } : {}) },
  ]);
}

export const SWE_SMITH_LANGUAGE_PROFILES: Readonly<Record<string, SmithLanguageProfile>> = Object.freeze(
  Object.fromEntries([
    ...table('go', SMITH_GO_PROFILES),
    ...table('rust', SMITH_RUST_PROFILES),
    ...table('java', SMITH_JAVA_PROFILES),
    ...table('javascript', SMITH_JAVASCRIPT_PROFILES),
    ...table('typescript', SMITH_TYPESCRIPT_PROFILES),
    ...table('cpp', SMITH_CPP_PROFILES),
    // Each row of this file names its own language.
    ...table('c', SMITH_C_CSHARP_PHP_PROFILES),
  ]),
);
