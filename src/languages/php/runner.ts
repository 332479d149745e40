import type { CanaryRunner } from '../language.js';
import { PHPUNIT_CANARY_TEXT, PHPUNIT_MIRRORS } from './canaries.js';
import { phpunitFile } from './phpunit-mirrors.js';

/** PHPUnit: canaries are test methods of a PHPUnit test class. */
export const PHPUNIT_RUNNER: CanaryRunner = {
  ...PHPUNIT_CANARY_TEXT,
  ...PHPUNIT_MIRRORS,
  name: 'phpunit',
  parsers: ['parse_log_phpunit'],
  canaryFile: (path, content) => path.endsWith('.php') && phpunitFile(content),
  commandRunsAll: (testCommand) =>
    /\bphpunit\b/.test(testCommand) && !/--filter\b|--group\b|--exclude-group\b|--testsuite\b|--list-tests/.test(testCommand),
  stopsEarly: (testCommand) => /--stop-on-(failure|defect|error)\b/.test(testCommand),
  keyMatches: (canary, key) => key === `${canary.className ?? ''} > ${canary.name}`,
};
