import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const monotonicityCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('monotonicity')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'monotonicity is not built yet');
        }),
      );
  },
};
