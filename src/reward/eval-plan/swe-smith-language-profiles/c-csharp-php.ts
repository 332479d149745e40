import type { SmithProfileRow } from './row.js';

/**
 * swesmith 0.0.9's c, csharp, php profiles (swesmith/profiles/c.py, csharp.py and php.py): repo_name, test_cmd, parser.
 * A table of the package's facts; test/conformance/swesmith-language-profiles.test.ts checks it against the package.
 */

export const SMITH_C_CSHARP_PHP_PROFILES: readonly SmithProfileRow[] = [
  ['doctrine__dbal.acb68b38', 'vendor/bin/phpunit --testdox --colors=never', 'swesmith_phpunit_testdox', 'php'],
  ['jqlang__jq.b9e19de7', 'make check', 'swesmith_jq', 'c'],
  ['microsoft__VirtualClient.0bb16489', './build-test.sh', 'swesmith_dotnet', 'csharp'],
  ['valkey-io__valkey.fc7c04e4', 'TERM=dumb ./runtest --durable', 'swesmith_valkey', 'c'],
];
