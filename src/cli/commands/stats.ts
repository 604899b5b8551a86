import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const statsCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('stats')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'stats is not built yet');
        }),
      );
  },
};
