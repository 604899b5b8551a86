import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const metricsCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('metrics')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'metrics is not built yet');
        }),
      );
  },
};
