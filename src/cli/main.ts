#!/usr/bin/env node
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/paths.js';
import { registerClientCommands } from './client-commands.js';
import { registerCollectCommand } from './collect-command.js';
import { explainError } from './explain-error.js';
import { registerExportCommand } from './export-command.js';
import { registerGradingCommands } from './grading-commands.js';
import { registerImageCommands } from './images-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerTaskCommands } from './task-commands.js';
import { registerTrajectoryCommands } from './trajectories-command.js';

const version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

const program = new Command('swe-env')
  .description('gRPC environment server for RL on software-engineering tasks')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError('(add --help for usage)')
  .showSuggestionAfterError();

registerServeCommand(program);
registerTaskCommands(program);
registerClientCommands(program);
registerImageCommands(program);
registerGradingCommands(program);
registerTrajectoryCommands(program);
registerCollectCommand(program);
registerExportCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`swe-env: ${explainError(error, process.argv.slice(2))}\n`);
  process.exit(1);
});
