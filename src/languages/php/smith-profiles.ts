import type { SmithProfileRow } from '../shared/smith-profile-row.js';

/**
 * swesmith 0.0.9's php profiles (swesmith/profiles/php.py): repo_name, test_cmd, parser, language.
 * A table of the package's facts; test/conformance/swesmith-language-profiles.test.ts checks it against the package.
 */

export const SMITH_PHP_PROFILES: readonly SmithProfileRow[] = [
  ['doctrine__dbal.acb68b38', 'vendor/bin/phpunit --testdox --colors=never', 'swesmith_phpunit_testdox', 'php'],
];
