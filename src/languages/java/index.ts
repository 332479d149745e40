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
  // Maven reads `.mvn/` (maven.config's command-line options, `-Dmaven.test.failure.ignore=true`
  // among them; jvm.config; extensions.xml) and the wrappers fetch and run their own Maven or
  // Gradle (`mvnw`, `gradlew` and their wrapper folders); gradle.properties sets Gradle's options.
  runnerControl: {
    isControlPath: (parts) => {
      const base = parts.at(-1) ?? '';
      return (
        parts.includes('.mvn') ||
        /^(mvnw|gradlew)(\.cmd|\.bat)?$/.test(base) ||
        base === 'gradle.properties' ||
        (parts.at(-2) === 'wrapper' && parts.at(-3) === 'gradle')
      );
    },
    buildDefinitions: [
      [/(^|[\s;&|(/])(mvn|mvnw)(\s|$)/, /^pom\.xml$/],
      [/(^|[\s;&|(/])(gradle|gradlew)(\s|$)/, /^(build|settings)\.gradle(\.kts)?$/],
    ],
  },
  smithProfiles: { java: SMITH_JAVA_PROFILES },
  buildOutputs: [
    { manifest: 'pom.xml', outputs: ['target'] },
    { manifest: 'build.gradle', outputs: ['build', '.gradle'] },
    { manifest: 'build.gradle.kts', outputs: ['build', '.gradle'] },
    { manifest: 'settings.gradle', outputs: ['build', '.gradle'] },
    { manifest: 'settings.gradle.kts', outputs: ['build', '.gradle'] },
  ],
};
