import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import type { LanguageParser } from '../shared/py-re.js';
import {
  parseLogCalypso,
  parseLogHighlightjs,
  parseLogImmutableJs,
  parseLogJest,
  parseLogJestJson,
  parseLogKarma,
  parseLogMarked,
  parseLogTap,
  parseLogVitest,
} from './harness-parsers.js';
import {
  parseLogBpmnJs,
  parseLogCarbon,
  parseLogChartJs,
  parseLogCypress,
  parseLogEmotion,
  parseLogEslint,
  parseLogGrommet,
  parseLogLighthouse,
  parseLogNext,
  parseLogOpenlayers,
  parseLogP5js,
  parseLogPrismjs,
  parseLogQuartoCli,
  parsePlotlyJs,
} from './harness-repos.js';
import { JASMINE_REPORTER } from './jasmine-reporter.js';
import { TAP_RUNNER } from './runner.js';
import {
  parseSmithJasmine,
  parseSmithJest,
  parseSmithKarma,
  parseSmithMarked,
  parseSmithMocha,
  parseSmithMochaCounts,
  parseSmithQunit,
  parseSmithReactPdf,
  parseSmithTurbo,
  parseSmithVitest,
} from './smith-parsers.js';
import { SMITH_JAVASCRIPT_PROFILES } from './smith-profiles.js';
import { SMITH_TYPESCRIPT_PROFILES } from './smith-profiles-typescript.js';

/** What the package managers read besides package.json's scripts: settings that name code to run. */
const PACKAGE_MANAGER_FILES = /^(package\.json|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.cjs)$/;

/** JavaScript and TypeScript (SWE-smith's typescript profiles run the same runners). */
export const JAVASCRIPT: Language = {
  name: 'javascript',
  title: 'JavaScript/TypeScript',
  harnessParsers: harnessFunctions({
    parse_log_calypso: parseLogCalypso,
    parse_log_bpmn_js: parseLogBpmnJs,
    parse_log_carbon: parseLogCarbon,
    parse_log_eslint: parseLogEslint,
    parse_log_grommet: parseLogGrommet,
    parse_log_highlightjs: parseLogHighlightjs,
    parse_log_lighthouse: parseLogLighthouse,
    parse_log_next: parseLogNext,
    parse_log_openlayers: parseLogOpenlayers,
    parse_log_prismjs: parseLogPrismjs,
    parse_log_quarto_cli: parseLogQuartoCli,
    parse_log_chart_js: parseLogChartJs,
    parse_log_marked: parseLogMarked,
    parse_log_p5js: parseLogP5js,
    // react-pdf's parser is a copy of carbon's.
    parse_log_react_pdf: parseLogCarbon,
    parse_log_jest: parseLogJest,
    parse_log_jest_json: parseLogJestJson,
    parse_log_vitest: parseLogVitest,
    parse_log_karma: parseLogKarma,
    parse_log_tap: parseLogTap,
    parse_log_immutable_js: parseLogImmutableJs,
  }),
  smithParsers: smithFunctions({
    swesmith_jest: parseSmithJest,
    swesmith_mocha: parseSmithMocha,
    swesmith_mocha_counts: parseSmithMochaCounts,
    swesmith_vitest: parseSmithVitest,
    swesmith_karma: parseSmithKarma,
    swesmith_jasmine: parseSmithJasmine,
    swesmith_qunit: parseSmithQunit,
    swesmith_react_pdf: parseSmithReactPdf,
    swesmith_marked: parseSmithMarked,
    swesmith_turbo: parseSmithTurbo,
  }),
  wholeLogParsers: ['parse_log_jest_json'],
  toolchain: { family: 'node', packages: ['nodejs', 'npm'] },
  // The runners' configuration (reporters, setup files, jasmine's spec and helper globs) and package.json's scripts,
  // and the installed packages: the runners themselves (a new node_modules/jasmine/node_modules/jasmine-core is
  // what jasmine requires, before the installed one and before swe-env's reporter loads).
  runnerControl: {
    isControlPath: (parts) =>
      parts.includes('node_modules') ||
      /^(jest|vitest|karma|playwright)\.config\.[cm]?[jt]s$|^karma\.conf\.[cm]?js$|^\.mocharc(\.[\w]+)?$|^\.babelrc$|^babel\.config\.[cm]?js$|^jasmine\.json$/.test(
        parts.at(-1) ?? '',
      ),
    // package.json, and the package managers' own settings: .npmrc's script-shell runs a file of the
    // change's as the shell of `npm test`, .yarnrc's yarn-path as yarn itself, .pnpmfile.cjs on install.
    buildDefinitions: [[/(^|[\s;&|(])(npm|npx|yarn|pnpm)(\s|$)/, PACKAGE_MANAGER_FILES]],
    // The harness's re-sync after a change to package.json (`npm install`, `yarn install`) runs its
    // lifecycle scripts, offline too: a postinstall could rewrite the installed runner.
    installDefinitions: [[/(^|[\s;&|(])(npm|yarn|pnpm)\s+(install|i|ci|add)(\s|$)/m, PACKAGE_MANAGER_FILES]],
  },
  smithProfiles: { javascript: SMITH_JAVASCRIPT_PROFILES, typescript: SMITH_TYPESCRIPT_PROFILES },
  canaryRunners: [TAP_RUNNER],
  resultReporters: [JASMINE_REPORTER],
  buildOutputs: [{ manifest: 'package.json', outputs: ['node_modules'] }],
};

/**
 * Functions of the harness's javascript.py that only its MAP_REPO_TO_PARSER_JS names (plotly.js,
 * emotion, cypress; scratch-gui, prettier and lighthouse's jest are carbon's). A 5.x row cannot
 * name them (the harness would fail on the unknown name), so they are not in the registry; they
 * are ported, and checked, by their Python names.
 */
export const UNREGISTERED_PARSERS: Readonly<Record<string, LanguageParser>> = Object.freeze({
  parse_plotly_js: parsePlotlyJs,
  parse_log_emotion: parseLogEmotion,
  parse_log_cypress: parseLogCypress,
  parse_log_scratch_gui: parseLogCarbon,
  parse_log_prettier: parseLogCarbon,
  parse_log_lighthouse_jest: parseLogCarbon,
});
