import { readFileSync } from 'node:fs';

/** The bash programs the sandbox runs, kept as .sh files beside this one (copied into dist/). */
function script(name: string): string {
  return readFileSync(new URL(`./scripts/${name}`, import.meta.url), 'utf8');
}

export const AGENT_SHELL_SCRIPT = script('agent-shell.sh');
export const AGENT_SHELL_SETUP = script('agent-shell-setup.sh');
export const KILL_COMMAND_SCRIPT = script('kill-command.sh');
export const KEEPER_SCRIPT = script('keeper.sh');
export const COMMAND_JOURNAL_SCRIPT = script('command-journal.sh');
export const EXEC_CHANNEL_SCRIPT = script('exec-channel.sh');
