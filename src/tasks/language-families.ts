import { languageOfParser } from '../languages/index.js';

/**
 * Language toolchain families: the Debian packages a base variant adds for each (`swe-env images
 * base --family go`, one layer on the sandbox base image, from the machine's own apt sources), and
 * the language a task's harness parser names (for the prompt and the tool schemas). Every package is
 * Debian bookworm's: nothing comes from a language's own registry, so an image builds with only the
 * Debian mirror reachable.
 */
export type LanguageFamily = 'go' | 'rust' | 'node' | 'java' | 'ruby' | 'php' | 'cpp';

export interface FamilySpec {
  readonly packages: readonly string[];
  /** How the prompt names the language. */
  readonly language: string;
}

export const LANGUAGE_FAMILIES: Readonly<Record<LanguageFamily, FamilySpec>> = Object.freeze({
  go: { packages: ['golang-go'], language: 'Go' },
  rust: { packages: ['rustc', 'cargo'], language: 'Rust' },
  node: { packages: ['nodejs', 'npm'], language: 'JavaScript' },
  // Debian's Maven repository (/usr/share/maven-repo) holds surefire, JUnit 4 and, with the plugin
  // packages, the compiler and resources plugins: an offline build (`mvn -o
  // -Dmaven.repo.local=/usr/share/maven-repo`) uses it as its local repository instead of a remote one.
  java: {
    packages: ['openjdk-17-jdk-headless', 'maven', 'maven-repo-helper', 'libsurefire-java', 'junit4', 'libmaven-compiler-plugin-java', 'libmaven-resources-plugin-java'],
    language: 'Java',
  },
  // jq: the harness's RSpec rows pipe `rspec --format json` through jq into `name - status` lines.
  ruby: { packages: ['ruby', 'ruby-rspec', 'ruby-minitest', 'jq'], language: 'Ruby' },
  php: { packages: ['php-cli', 'phpunit'], language: 'PHP' },
  cpp: { packages: ['gcc', 'g++', 'cmake', 'make', 'libgtest-dev'], language: 'C/C++' },
});

export function isLanguageFamily(name: string): name is LanguageFamily {
  return Object.hasOwn(LANGUAGE_FAMILIES, name);
}

/** The packages of the named families, in order, without repeats; an unknown name is an error. */
export function familyPackages(names: readonly string[]): string[] {
  const unknown = names.filter((n) => !isLanguageFamily(n));
  if (unknown.length > 0) throw new Error(`unknown language families: ${unknown.join(', ')} (known: ${Object.keys(LANGUAGE_FAMILIES).join(', ')})`);
  return [...new Set(names.flatMap((n) => LANGUAGE_FAMILIES[n as LanguageFamily].packages))];
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
