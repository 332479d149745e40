import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from './harness-parsers.js';
import { parseSmithGradleJunitXml, parseSmithMavenSurefire } from './smith-parsers.js';
import { SMITH_JAVA_PROFILES } from './smith-profiles.js';

export const JAVA: Language = {
  name: 'java',
  title: 'Java',
  harnessParsers: harnessFunctions({
    parse_log_maven: parseLogMaven,
    parse_log_ant: parseLogAnt,
    parse_log_gradle_custom: parseLogGradleCustom,
  }),
  smithParsers: smithFunctions({ swesmith_maven_surefire: parseSmithMavenSurefire, swesmith_gradle_junit_xml: parseSmithGradleJunitXml }),
  wholeLogParsers: ['parse_log_maven'],
  // Debian's Maven repository (/usr/share/maven-repo) holds surefire, JUnit 4 and, with the plugin
  // packages, the compiler and resources plugins: an offline build (`mvn -o
  // -Dmaven.repo.local=/usr/share/maven-repo`) uses it as its local repository instead of a remote one.
  toolchain: {
    family: 'java',
    packages: [
      'openjdk-17-jdk-headless',
      'maven',
      'maven-repo-helper',
      'libsurefire-java',
      'junit4',
      'libmaven-compiler-plugin-java',
      'libmaven-resources-plugin-java',
    ],
  },
  runnerControl: {
    isControlPath: () => false,
    buildDefinitions: [
      [/(^|[\s;&|(/])(mvn|mvnw)(\s|$)/, /^pom\.xml$/],
      [/(^|[\s;&|(/])(gradle|gradlew)(\s|$)/, /^(build|settings)\.gradle(\.kts)?$/],
    ],
  },
  smithProfiles: { java: SMITH_JAVA_PROFILES },
};
