/** The languages of swesmith's profiles beyond Python (the module each profile class is in). */
export type SmithLanguage = 'go' | 'rust' | 'java' | 'javascript' | 'typescript' | 'c' | 'cpp' | 'csharp' | 'php';

/** One profile: its repo_name (`owner__name.commit8`), its test_cmd, our name of its log_parser, and its language where a file holds several. */
export type SmithProfileRow = readonly [repoName: string, testCmd: string, parser: string, language?: SmithLanguage];
