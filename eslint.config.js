import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers, lowest first: common (with generated) < languages (the language wing) < sandbox <
 * tasks < reward < client < trajectories < metrics < server < cli. A folder imports its own layer
 * and those below, never one above; nothing imports in a circle.
 */
const LAYERS = ['common', 'languages', 'sandbox', 'tasks', 'reward', 'client', 'trajectories', 'metrics', 'server', 'cli'];

/** Import patterns that reach a folder of src/ from anywhere inside src/. */
const reach = (folder) => [`**/${folder}/**`, `../${folder}`, `../../${folder}`];

/** The patterns that keep `layer` from every layer above it. */
const aboveLayer = (layer) => {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1);
  return { group: above.flatMap(reach), message: `src/${layer} is below ${above.join(', ')}: move the shared piece down instead` };
};

/** One no-restricted-imports block per layer: every layer above it is out of reach. */
function layerRules() {
  return LAYERS.slice(0, -1).map((layer) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [aboveLayer(layer)] }] },
  }));
}

/**
 * The language wing (src/languages): one folder per language, a shared part (shared/) and the
 * registry (language.ts, registry.ts, smith-profiles.ts, index.ts). A language imports the shared
 * part and language.ts only: never another language, nor the registry that lists it; the shared
 * part imports no language (language.ts alone). Outside the wing, code imports the wing's index alone.
 */
function wingRules() {
  return [
    {
      // Every language folder, whatever its name: a new one is held to the rule without a line here.
      files: ['src/languages/*/**/*.ts'],
      ignores: ['src/languages/shared/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              aboveLayer('languages'),
              { regex: '^\\.\\./(?!shared/|language\\.js$)', message: 'a language folder imports no other language and not the registry: only ../shared/ and ../language.js' },
            ],
          },
        ],
      },
    },
    {
      files: ['src/languages/shared/**/*.ts'],
      rules: {
        'no-restricted-imports': ['error', { patterns: [aboveLayer('languages'), { regex: '^\\.\\./(?!language\\.js$)', message: 'the wing\'s shared part imports no language and not the registry: only ../language.js' }] }],
      },
    },
  ];
}

/** Outside the wing, only its index: `src/languages/<language>/` and its inner files are the wing's own. */
const WING_INDEX_ONLY = { regex: '(^|/)languages/(?!index\\.js$)', message: 'import the language wing through src/languages/index.js only' };

/** Every layer above the wing, with the wing's index rule added to its own. */
function layerRulesWithWing() {
  return layerRules().map((block) =>
    block.files[0].startsWith('src/languages/')
      ? block
      : { ...block, rules: { 'no-restricted-imports': ['error', { patterns: [...block.rules['no-restricted-imports'][1].patterns, WING_INDEX_ONLY] }] } },
  );
}

/**
 * Inside src/reward: the harness's verdict is the lowest (it knows results, not plans; the parsers
 * are the language wing's), then the eval plan; neither imports the grading stages, and the verdict
 * does not either.
 */
const REWARD_INNER = [
  { files: ['src/reward/harness/**/*.ts'], group: ['**/eval-plan/**', '**/grading/**', '**/capture/**', '**/eval-run/**', '**/grader.js', '**/verdict.js'] },
  { files: ['src/reward/eval-plan/**/*.ts'], group: ['**/grading/**', '**/capture/**', '**/eval-run/**', '**/grader.js'] },
  { files: ['src/reward/verdict.ts', 'src/reward/report.ts', 'src/reward/findings.ts'], group: ['**/grading/**', '**/capture/**', '**/eval-run/**', './grader.js'] },
].map(({ files, group }) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [aboveLayer('reward'), WING_INDEX_ONLY, { group, message: 'an import back up inside src/reward' }] }] },
}));

/**
 * Known arrows back up, each to be removed: the prompt renders the eval plan, and the demo dataset's
 * builder grades its tasks. (The task loader and the language families now ask the language wing,
 * a layer below src/tasks.)
 */
const KNOWN_BACK_UP = {
  files: ['src/tasks/prompt.ts', 'src/tasks/demo/*.ts'],
  rules: { 'no-restricted-imports': 'off' },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**', 'clients/**', 'tasks/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  ...layerRulesWithWing(),
  ...wingRules(),
  ...REWARD_INNER,
  KNOWN_BACK_UP,
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'scripts/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
