import type { Command } from 'commander';
import { SweEnvClient } from '../client/client.js';
import { clientSecurity, number } from './options.js';
import { runShell } from './shell.js';

export function registerClientCommands(program: Command): void {
  program
    .command('health')
    .description('exit 0 when the server answers (through its token and TLS) and is not draining: for readiness and liveness probes')
    .option('--server <address>', 'server address', '127.0.0.1:50051')
    .option('--token-file <file>', 'bearer token for the server (or set SWE_ENV_AUTH_TOKEN)')
    .option('--ca <file>', "CA of the server's TLS certificate (PEM); TLS is used when given")
    .option('--timeout <s>', 'seconds to wait for the answer', number, 5)
    .action(async (o: { server: string; tokenFile?: string; ca?: string; timeout: number }) => {
      const client = new SweEnvClient(o.server, {}, clientSecurity(o));
      try {
        const info = await client.getServerInfo({ timeoutS: o.timeout });
        process.stdout.write(
          `${info.serverId} ${info.version}: ${info.liveEpisodes}/${info.maxEpisodes} episodes, ${info.gradingsRunning}/${info.maxGradings} gradings${info.draining ? ', draining' : ''}; ${info.engine}, runtime ${info.runtime}\n`,
        );
        if (info.draining) process.exitCode = 1;
      } finally {
        client.dispose();
      }
    });

  program
    .command('shell <taskId>')
    .description('step an episode by hand: type commands, :submit to grade, :quit to leave')
    .option('--server <address>', 'server address', '127.0.0.1:50051')
    .option('--token-file <file>', 'bearer token for the server (or set SWE_ENV_AUTH_TOKEN)')
    .option('--ca <file>', "CA of the server's TLS certificate (PEM); TLS is used when given")
    .action(async (taskId: string, o: { server: string; tokenFile?: string; ca?: string }) => {
      await runShell(o.server, taskId, clientSecurity(o));
    });
}
