import { harnessFunctions, type Language } from '../language.js';
import { RSPEC_RUNNER } from './runner.js';
import { parseLogCucumber, parseLogJekyll, parseLogMinitest, parseLogRspecTransformedJson, parseLogRubyUnit } from './harness-parsers.js';

/** Ruby: the harness's parsers (swesmith 0.0.9 has no Ruby profile); RSpec runs take canaries. */
export const RUBY: Language = {
  name: 'ruby',
  title: 'Ruby',
  harnessParsers: harnessFunctions({
    parse_log_minitest: parseLogMinitest,
    parse_log_cucumber: parseLogCucumber,
    parse_log_ruby_unit: parseLogRubyUnit,
    parse_log_rspec_transformed_json: parseLogRspecTransformedJson,
    parse_log_jekyll: parseLogJekyll,
  }),
  smithParsers: {},
  // jq: the harness's RSpec rows pipe `rspec --format json` through jq into `name - status` lines.
  toolchain: { family: 'ruby', packages: ['ruby', 'ruby-rspec', 'ruby-minitest', 'jq'] },
  // RSpec's configuration, specs and their helpers.
  runnerControl: {
    isControlPath: (parts) => {
      const base = parts.at(-1) ?? '';
      return base === '.rspec' || base.endsWith('_spec.rb') || (parts.slice(0, -1).includes('spec') && base.endsWith('.rb'));
    },
    buildDefinitions: [[/(^|[\s;&|(])(rake|bundle)(\s|$)/, /^(Rakefile|Gemfile)$/]],
  },
  wholeLogParsers: ['parse_log_rspec_transformed_json'],
  canaryRunners: [RSPEC_RUNNER],
};
