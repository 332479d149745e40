import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from './harness-parsers.js';
import { parseSmithGradleJunitXml, parseSmithMavenSurefire } from './smith-parsers.js';
import { SMITH_JAVA_PROFILES } from './smith-profiles.js';

export const JAVA: Language = {
  name: 'java',
  title: 'Java',
  harnessParsers: harnessFunctions({ parse_log_maven: parseLogMaven, parse_log_ant: parseLogAnt, parse_log_gradle_custom: parseLogGradleCustom }),
  smithParsers: smithFunctions({ swesmith_maven_surefire: parseSmithMavenSurefire, swesmith_gradle_junit_xml: parseSmithGradleJunitXml }),
  wholeLogParsers: ['parse_log_maven'],
  smithProfiles: { java: SMITH_JAVA_PROFILES },
};
