import { smithFunctions, type Language } from '../language.js';
import { parseSmithDotnet } from './smith-parsers.js';
import { SMITH_CSHARP_PROFILES } from './smith-profiles.js';

/** C#: only SWE-smith has a profile (the harness has no C# parser). */
export const CSHARP: Language = {
  name: 'csharp',
  title: 'C#',
  harnessParsers: {},
  smithParsers: smithFunctions({ swesmith_dotnet: parseSmithDotnet }),
  smithProfiles: { csharp: SMITH_CSHARP_PROFILES },
};
