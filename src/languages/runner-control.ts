import { LANGUAGES } from './registry.js';

/**
 * Whether a path is one a language's runners read or run around their tests (Language.runnerControl):
 * a control path of any language, a build definition the test command's own tools read, or what a
 * step run once the change is applied (`steps`: the plan's install and steps around the test
 * patch) installs from.
 */
export function isLanguageControlPath(path: string, testCommand: string, steps = ''): boolean {
  const parts = path.split('/');
  const base = parts.at(-1) ?? '';
  return LANGUAGES.some(({ runnerControl }) => {
    if (!runnerControl) return false;
    if (runnerControl.isControlPath(parts)) return true;
    if ((runnerControl.installDefinitions ?? []).some(([step, file]) => step.test(steps) && file.test(base))) return true;
    return (runnerControl.buildDefinitions ?? []).some(([tool, file]) => tool.test(testCommand) && file.test(base));
  });
}
