import type { SmithProfileRow } from '../shared/smith-profile-row.js';

/**
 * swesmith 0.0.9's csharp profiles (swesmith/profiles/csharp.py): repo_name, test_cmd, parser, language.
 * A table of the package's facts; test/conformance/swesmith-language-profiles.test.ts checks it against the package.
 */

export const SMITH_CSHARP_PROFILES: readonly SmithProfileRow[] = [
  ['microsoft__VirtualClient.0bb16489', './build-test.sh', 'swesmith_dotnet', 'csharp'],
];
