import { LANGUAGES } from './registry.js';

/**
 * Whether a path is one a language's runners read or run around their tests (Language.runnerControl):
 * a control path of any language, or a build definition the test command's own tools read.
 */
export function isLanguageControlPath(path: string, testCommand: string): boolean {
  const parts = path.split('/');
  const base = parts.at(-1) ?? '';
  return LANGUAGES.some(({ runnerControl }) => {
    if (!runnerControl) return false;
    if (runnerControl.isControlPath(parts)) return true;
    return (runnerControl.buildDefinitions ?? []).some(([tool, file]) => tool.test(testCommand) && file.test(base));
  });
}
