import type { CanaryRunner } from '../language.js';
import { RSPEC_CANARY_TEXT, RSPEC_MIRRORS } from './canaries.js';
import { rspecFile } from './rspec-mirrors.js';

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * RSpec: canaries are examples of a spec file's one top-level group. Only where the command names
 * the file itself (a directory or the default pattern may not reach it) and filters nothing: a
 * canary the run leaves out would read as missing, an integrity flag on an honest run.
 */
export const RSPEC_RUNNER: CanaryRunner = {
  ...RSPEC_CANARY_TEXT,
  ...RSPEC_MIRRORS,
  name: 'rspec',
  parsers: ['parse_log_rspec_transformed_json'],
  canaryFile: (path, content) => path.endsWith('_spec.rb') && rspecFile(content),
  commandRunsAll: (testCommand, path) =>
    /\brspec\b/.test(testCommand) &&
    new RegExp(`(^|\\s)(\\./)?${escaped(path)}(\\s|$)`).test(testCommand) &&
    !/(^|\s)(-e|--example|--example-matches|-E|-t|--tag|--only-failures|--next-failure|--dry-run)(\s|=|$)|_spec\.rb[:[]/.test(testCommand),
  // A run stopped by a failure leaves later examples unreported. The repository's own configuration
  // (`.rspec`, spec_helper's fail_fast) is overridden in the planted file (RSPEC_NO_FAIL_FAST); the
  // command's option is still read as stopping (it may come after a file of another runner's).
  stopsEarly: (testCommand) => /--fail-fast\b/.test(testCommand),
  keyMatches: (canary, key) => key === canary.name,
};
