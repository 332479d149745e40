import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogPhpunit } from './harness-parsers.js';
import { PHPUNIT_RUNNER } from './runner.js';
import { parseSmithPhpunitTestdox } from './smith-parsers.js';
import { SMITH_PHP_PROFILES } from './smith-profiles.js';

export const PHP: Language = {
  name: 'php',
  title: 'PHP',
  harnessParsers: harnessFunctions({ parse_log_phpunit: parseLogPhpunit }),
  smithParsers: smithFunctions({ swesmith_phpunit_testdox: parseSmithPhpunitTestdox }),
  toolchain: { family: 'php', packages: ['php-cli', 'phpunit'] },
  runnerControl: {
    isControlPath: (parts) => ['phpunit.xml', 'phpunit.xml.dist', '.phpunit.result.cache'].includes(parts.at(-1) ?? ''),
    buildDefinitions: [[/(^|[\s;&|(/])(composer|phpunit)(\s|$)/, /^composer\.json$/]],
  },
  smithProfiles: { php: SMITH_PHP_PROFILES },
  canaryRunners: [PHPUNIT_RUNNER],
  buildOutputs: [{ manifest: 'composer.json', outputs: ['vendor'] }],
};
