import { LANGUAGES, languageOfParser } from '../languages/index.js';

/**
 * Language toolchain families: the Debian packages a base variant adds for each (`swe-env images
 * base --family go`), as each language of the wing names them (Language.toolchain), and the
 * language a task's harness parser names (for the prompt and the tool schemas).
 */
export type LanguageFamily = string;

export interface FamilySpec {
  readonly packages: readonly string[];
}

export const LANGUAGE_FAMILIES: Readonly<Record<LanguageFamily, FamilySpec>> = Object.freeze(
  Object.fromEntries(
    LANGUAGES.flatMap((language) => (language.toolchain ? [[language.toolchain.family, { packages: language.toolchain.packages }]] : [])),
  ),
);

export function isLanguageFamily(name: string): name is LanguageFamily {
  return Object.hasOwn(LANGUAGE_FAMILIES, name);
}

/** The packages of the named families, in order, without repeats; an unknown name is an error. */
export function familyPackages(names: readonly string[]): string[] {
  const unknown = names.filter((n) => !isLanguageFamily(n));
  if (unknown.length > 0)
    throw new Error(`unknown language families: ${unknown.join(', ')} (known: ${Object.keys(LANGUAGE_FAMILIES).join(', ')})`);
  return [...new Set(names.flatMap((n) => LANGUAGE_FAMILIES[n]!.packages))];
}

/**
 * The task's programming language as its parser tells it: a non-Python parser of the harness's
 * registry or of SWE-smith's other profiles names one; every other parser is a Python runner's
 * (pytest, django, sympy, SWE-smith's Python profiles).
 */
export function taskLanguage(logParser: string | undefined): string {
  if (logParser === undefined) return 'Python';
  return languageOfParser(logParser)?.title ?? 'Python';
}
