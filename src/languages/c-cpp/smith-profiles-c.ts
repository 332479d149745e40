import type { SmithProfileRow } from '../shared/smith-profile-row.js';

/**
 * swesmith 0.0.9's c profiles (swesmith/profiles/c.py): repo_name, test_cmd, parser, language.
 * A table of the package's facts; test/conformance/swesmith-language-profiles.test.ts checks it against the package.
 */

export const SMITH_C_PROFILES: readonly SmithProfileRow[] = [
  ['jqlang__jq.b9e19de7', 'make check', 'swesmith_jq', 'c'],
  ['valkey-io__valkey.fc7c04e4', 'TERM=dumb ./runtest --durable', 'swesmith_valkey', 'c'],
];
