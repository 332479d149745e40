import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers, lowest first: common (with generated) < sandbox < tasks < reward < client <
 * trajectories < metrics < server < cli. A folder imports its own layer and those below, never one
 * above; nothing imports in a circle.
 */
const LAYERS = ['common', 'sandbox', 'tasks', 'reward', 'client', 'trajectories', 'metrics', 'server', 'cli'];

/** Import patterns that reach a folder of src/ from anywhere inside src/. */
const reach = (folder) => [`**/${folder}/**`, `../${folder}`, `../../${folder}`];

/** One no-restricted-imports block per layer: every layer above it is out of reach. */
function layerRules() {
  return LAYERS.slice(0, -1).map((layer, i) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: LAYERS.slice(i + 1).flatMap(reach), message: `src/${layer} is below ${LAYERS.slice(i + 1).join(', ')}: move the shared piece down instead` }] },
      ],
    },
  }));
}

/**
 * Inside src/reward: the harness's parsers are the lowest (they know logs, not plans), then the eval
 * plan; neither imports the grading stages, and the verdict does not either.
 */
const REWARD_INNER = [
  { files: ['src/reward/harness/**/*.ts'], group: ['**/eval-plan/**', '**/grading/**', '**/capture/**', '**/eval-run/**', '**/grader.js', '**/verdict.js'] },
  { files: ['src/reward/eval-plan/**/*.ts'], group: ['**/grading/**', '**/capture/**', '**/eval-run/**', '**/grader.js'] },
  { files: ['src/reward/verdict.ts', 'src/reward/report.ts', 'src/reward/findings.ts'], group: ['**/grading/**', '**/capture/**', '**/eval-run/**', './grader.js'] },
].map(({ files, group }) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group, message: 'an import back up inside src/reward' }] }] } }));

/**
 * Known arrows back up, each to be removed by the language wing (issue 31): the task loader and the
 * language families ask the harness's parser registry, the prompt renders the eval plan, and the
 * demo dataset's builder grades its tasks.
 */
const KNOWN_BACK_UP = {
  files: ['src/tasks/loader.ts', 'src/tasks/language-families.ts', 'src/tasks/prompt.ts', 'src/tasks/demo/*.ts'],
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
  ...layerRules(),
  ...REWARD_INNER,
  KNOWN_BACK_UP,
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'scripts/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
