import { LANGUAGES } from './registry.js';
import type { SmithLanguage, SmithProfileRow } from './shared/smith-profile-row.js';

export type { SmithLanguage } from './shared/smith-profile-row.js';

/**
 * swesmith 0.0.9's profiles for Go, Rust, Java, JavaScript, TypeScript, C, C++, C# and PHP (the
 * package has no Ruby one), keyed by repo_name like the Python ones (python/smith-profiles.ts), each
 * from its language's folder. None is `min_testing`, so the package's get_test_cmd gives the
 * profile's test_cmd as it is; babel's alone composes its own (`packageFolders`).
 */
export interface SmithLanguageProfile {
  readonly language: SmithLanguage;
  readonly testCmd: string;
  /** The log parser, by its name among the language's smithParsers. */
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
  Object.fromEntries(LANGUAGES.flatMap((language) => Object.entries(language.smithProfiles ?? {}).flatMap(([smithLanguage, rows]) => table(smithLanguage as SmithLanguage, rows)))),
);
