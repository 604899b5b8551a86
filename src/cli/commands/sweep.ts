import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const sweepCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('sweep')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'sweep is not built yet');
        }),
      );
  },
};
