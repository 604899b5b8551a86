import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const validateCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('validate')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'validate is not built yet');
        }),
      );
  },
};
